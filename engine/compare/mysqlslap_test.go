package compare

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/idemchaos/idemchaos/targets/api"
	innoledger "github.com/idemchaos/idemchaos/targets/ledger/innodb"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
	"github.com/idemchaos/idemchaos/targets/strategy"
	"github.com/idemchaos/idemchaos/targets/strategy/innodb"
)

// sentQueries keeps the text of each query (COM_QUERY) sent on
// connections dialed with the network "idemchaos-recorded": one round trip
// each, its statements in one multi-statement query.
var sentQueries struct {
	mu   sync.Mutex
	text []string
}

func init() {
	mysql.RegisterDialContext("idemchaos-recorded", func(ctx context.Context, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		return recordedConn{c}, err
	})
}

type recordedConn struct{ net.Conn }

// Write keeps a COM_QUERY packet's text: a 4-byte header, then 0x03.
func (c recordedConn) Write(b []byte) (int, error) {
	if len(b) > 5 && b[4] == 0x03 {
		sentQueries.mu.Lock()
		sentQueries.text = append(sentQueries.text, string(b[5:]))
		sentQueries.mu.Unlock()
	}
	return c.Conn.Write(b)
}

// takeSent returns the queries sent since the last call, and forgets them.
func takeSent() []string {
	sentQueries.mu.Lock()
	defer sentQueries.mu.Unlock()
	out := sentQueries.text
	sentQueries.text = nil
	return out
}

// innoDB is a MariaDB database of the test's own with the InnoDB ledger,
// its URL and a pool on it.
func innoDB(t *testing.T) (string, *sql.DB) {
	t.Helper()
	url := provisiontest.MySQLDatabase(t, services)
	dsn, err := provision.MySQLDSN(url)
	if err != nil {
		t.Fatal(err)
	}
	db, err := innoledger.Open(dsn, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := innoledger.Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return url, db
}

// TestInnoDBScriptIsWhatInnoDBTxSends: innodb.TxFresh and TxReplay, the
// statements mysqlslap replays, are the queries innodb-tx sends to MariaDB
// for a fresh key and for a retry of it, round trip by round trip, each
// placeholder the request's value (as the driver interpolates it).
func TestInnoDBScriptIsWhatInnoDBTxSends(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	url, ctl := innoDB(t)
	if err := innoledger.OpenAccount(ctx, ctl, "acct-1", "EUR", 100_000); err != nil {
		t.Fatal(err)
	}
	dsn, _ := provision.MySQLDSN(url)
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Net = "idemchaos-recorded"
	db, err := innoledger.Open(cfg.FormatDSN(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.PingContext(ctx); err != nil { // the handshake is not the request's
		t.Fatal(err)
	}
	st, err := strategy.New(innodb.Tx.Name, strategy.Deps{MySQL: db, Profile: api.IETF})
	if err != nil {
		t.Fatal(err)
	}
	body := api.ChargeRequest{Account: "acct-1", Amount: 250, Currency: "EUR"}
	req := strategy.Request{Key: "key-slap", AttemptID: "A", Body: body, Fingerprint: body.Fingerprint(), Replica: 3}
	want := map[string]string{"key": "'key-slap'", "fingerprint": "'" + body.Fingerprint() + "'", "amount": "250",
		"account": "'acct-1'", "currency": "'EUR'", "attempt": "'A'", "replica": "3", "status": "201"}
	takeSent()
	for _, c := range []struct {
		what   string
		script strategy.Script
		status int
	}{{"fresh key", innodb.TxFresh(), 201}, {"retry", innodb.TxReplay(), 201}} {
		resp := st.Handle(ctx, req)
		if resp.Status != c.status {
			t.Fatalf("%s: %d %s", c.what, resp.Status, resp.Body)
		}
		sent := takeSent()
		if len(sent) != len(c.script) {
			t.Fatalf("%s: %d round trips %q; the script has %d", c.what, len(sent), sent, len(c.script))
		}
		for i, trip := range c.script {
			sameTrip(t, fmt.Sprintf("%s, round trip %d", c.what, i+1), sent[i], trip, want)
		}
	}
}

// sameTrip checks that a query sent is a round trip of the script: its
// statements as RoundTrip joins them, each placeholder the value named.
func sameTrip(t *testing.T, what, sent string, trip []strategy.Statement, want map[string]string) {
	t.Helper()
	var names []string
	for _, st := range trip {
		names = append(names, st.Params...)
	}
	parts := strings.Split(innodb.RoundTrip(trip), "?")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	m := regexp.MustCompile(`^(?s)` + strings.Join(parts, "(.*?)") + `$`).FindStringSubmatch(sent)
	if m == nil || len(m)-1 != len(names) {
		t.Errorf("%s: sent\n%s\nwant the statements\n%s", what, sent, innodb.RoundTrip(trip))
		return
	}
	for i, name := range names {
		got := m[i+1]
		if name == "body" {
			if !strings.HasPrefix(got, `_binary'{\"id\":\"ch_1\"`) {
				t.Errorf("%s: the body is %s", what, got)
			}
			continue
		}
		if got != want[name] {
			t.Errorf("%s: parameter %d (%s) is %s, want %s", what, i+1, name, got, want[name])
		}
	}
}

// TestSlapScript: the query file holds each transaction of the cycle as
// its round trips, one a line, every placeholder replaced, the retries in
// the duplicate ratio.
func TestSlapScript(t *testing.T) {
	for dup, want := range map[float64]SlapCycle{0.1: {9, 1}, 0: {1, 0}, 1: {0, 1}, 0.25: {3, 1}, 0.33: {67, 33}} {
		if got := NewSlapCycle(dup); got != want {
			t.Errorf("dup %v: cycle %+v, want %+v", dup, got, want)
		}
	}
	lines := strings.Split(strings.TrimSuffix(SlapScript(SlapCycle{Fresh: 3, Replays: 1}), "\n"), "\n")
	if len(lines) != 8 {
		t.Fatalf("%d lines, want 2 round trips for each of 4 transactions:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	replays := 0
	for i, l := range lines {
		if strings.Contains(l, "?") {
			t.Errorf("line %d keeps a placeholder: %s", i+1, l)
		}
		if i%2 == 0 && !strings.HasPrefix(l, "SET @k = ") {
			t.Errorf("line %d does not start its transaction with its variables: %s", i+1, l)
		}
		if strings.HasPrefix(l, "ROLLBACK; SELECT fingerprint") {
			replays++
			if !strings.HasPrefix(lines[i-1], "SET @k = CONCAT('seed-'") {
				t.Errorf("a retry of a key not seeded: %s", lines[i-1])
			}
		}
	}
	if replays != 1 || !strings.HasSuffix(lines[1], "WHERE `key` = @k; COMMIT") {
		t.Errorf("%d retries, want 1; a fresh key's second round trip: %s", replays, lines[1])
	}
}

// TestMysqlslapOnInnoDBTxSQL: mysqlslap runs the query file on a real
// MariaDB for about the measurement's duration: each fresh key charged
// once with its key row answered 201 (a JSON body naming its charge), no
// seeded key charged, and a rate.
func TestMysqlslapOnInnoDBTxSQL(t *testing.T) {
	path, err := FindTool("mysqlslap", nil)
	if err != nil {
		t.Fatal(err) // scripts/setup installs mariadb-client with mariadb-server
	}
	url, db := innoDB(t)
	c := Config{Concurrency: 4, Duration: time.Second, DupRatio: 0.1, Mysqlslap: path, Dir: t.TempDir()}
	s, err := newMysqlslap(context.Background(), c, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	t0 := time.Now()
	got, err := s.take(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.value <= 0 || got.count <= 0 || got.count != float64(int(got.count)) {
		t.Fatalf("%v tps over %v transactions", got.value, got.count)
	}
	if took := time.Since(t0); took > 20*time.Second {
		t.Errorf("a measurement of 1s took %v", took)
	}
	checkSlapLedger(t, db, int(got.count)*9/10)
}

// checkSlapLedger: fresh charges, each under a key answered 201 with its
// charge's id, none under a seeded key.
func checkSlapLedger(t *testing.T, db *sql.DB, fresh int) {
	t.Helper()
	ctx := context.Background()
	var charges, seeded int
	if err := db.QueryRowContext(ctx, "SELECT count(*), COALESCE(SUM(idempotency_key LIKE 'seed-%'), 0) FROM charges").
		Scan(&charges, &seeded); err != nil {
		t.Fatal(err)
	}
	if charges != fresh || seeded != 0 {
		t.Errorf("%d charges (%d under a seeded key) for %d fresh keys", charges, seeded, fresh)
	}
	rows, err := db.QueryContext(ctx, "SELECT c.seq, k.response_body FROM charges c JOIN idempotency_keys k "+
		"ON k.`key` = c.idempotency_key WHERE k.response_status = 201")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for ; rows.Next(); n++ {
		var seq int64
		var body []byte
		var c api.Charge
		if err := rows.Scan(&seq, &body); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(body, &c); err != nil || c.ID != "ch_"+strconv.FormatInt(seq, 10) || c.Currency != "EUR" {
			t.Fatalf("charge %d answered %s (%v)", seq, body, err)
		}
	}
	if n != fresh {
		t.Errorf("%d charges under a key answered 201, want %d", n, fresh)
	}
}

func TestParseSlap(t *testing.T) {
	out := "Benchmark\n\tAverage number of seconds to run all queries: 0.118 seconds\n" +
		"\tMinimum number of seconds to run all queries: 0.118 seconds\n\tNumber of clients running queries: 4\n" +
		"\tAverage number of queries per client: 100\n\n"
	r, err := ParseSlap([]byte(out))
	if err != nil || r.Clients != 4 || r.PerClient != 100 || r.transactions() != 200 || math.Abs(r.tps()-1694.9) > 0.1 {
		t.Errorf("%+v %v", r, err)
	}
	if _, err := ParseSlap([]byte("mysqlslap: Error when connecting to server: 2002\n")); err == nil {
		t.Error("no figures, no error")
	}
}
