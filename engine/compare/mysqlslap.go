package compare

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/idemchaos/idemchaos/sim/load"
	innoledger "github.com/idemchaos/idemchaos/targets/ledger/innodb"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/strategy"
	"github.com/idemchaos/idemchaos/targets/strategy/innodb"
)

// mysqlslap replays innodb-tx's SQL (innodb.TxFresh and TxReplay: one
// query per round trip, as innodb-tx sends it) on an InnoDB ledger of its
// own, as pgbench replays pg-tx's. mysqlslap has no duration and no
// random choice of script: each client runs the query file's cycle of
// fresh keys and retries (in the duplicate ratio) over and over, for a
// number of queries sized from the rate of its last run, so that a run
// lasts about the measurement's duration.
type mysqlslap struct {
	cfg    Config
	db     *sql.DB // the ledger's reset and check, apart from mysqlslap's clients
	schema string  // the database mysqlslap runs in
	conf   string  // its option file: the server, the user, the password
	query  string  // its query file
	cycle  SlapCycle
	rate   float64 // transactions per second of the last run; 0: none yet
}

// The bounds of sizing a run: a first run of one cycle per client,
// grown until it lasts slapPilot, then the rate it shows.
const (
	slapPilot     = 200 * time.Millisecond
	slapMaxCycles = 1 << 20
)

func newMysqlslap(ctx context.Context, c Config, url string) (*mysqlslap, error) {
	dsn, err := provision.MySQLDSN(url)
	if err != nil {
		return nil, err
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("mysqlslap database: %w", err)
	}
	db, err := innoledger.Open(dsn, 2)
	if err != nil {
		return nil, err
	}
	s := &mysqlslap{cfg: c, db: db, schema: cfg.DBName, conf: filepath.Join(c.Dir, "mysqlslap.cnf"),
		query: filepath.Join(c.Dir, "innodb-tx.sql"), cycle: NewSlapCycle(c.DupRatio)}
	err = firstErr(innoledger.Migrate(ctx, db),
		os.WriteFile(s.conf, []byte(slapOptions(cfg)), 0o600),
		os.WriteFile(s.query, []byte(SlapScript(s.cycle)), 0o644))
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

func (s *mysqlslap) close() { _ = s.db.Close() }

// slapOptions is mysqlslap's option file for cfg's server: a file, so
// that no password is on a command line.
func slapOptions(cfg *mysql.Config) string {
	host, port, _ := strings.Cut(cfg.Addr, ":")
	var b strings.Builder
	fmt.Fprintf(&b, "[client]\nprotocol=tcp\nhost=%s\nport=%s\nuser=%s\n", host, port, optionValue(cfg.User))
	if cfg.Passwd != "" {
		fmt.Fprintf(&b, "password=%s\n", optionValue(cfg.Passwd))
	}
	return b.String()
}

// optionValue quotes a value of an option file.
func optionValue(v string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
}

// SlapCycle is the sequence of transactions each mysqlslap client runs
// over and over: Fresh fresh keys and Replays retries of completed keys,
// the retries spread among them, in the duplicate ratio to the percent
// (as pgbench's script weights).
type SlapCycle struct{ Fresh, Replays int }

// NewSlapCycle is the shortest cycle in the duplicate ratio dup (0 to 1).
func NewSlapCycle(dup float64) SlapCycle {
	d := int(math.Round(dup * 100))
	g := gcd(d, 100)
	return SlapCycle{Fresh: (100 - d) / g, Replays: d / g}
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// replay reports whether transaction i of the cycle is a retry.
func (c SlapCycle) replay(i int) bool {
	n := c.Fresh + c.Replays
	return (i+1)*c.Replays/n > i*c.Replays/n
}

// The MySQL expressions of the parameters' values: user variables that
// the first round trip of each transaction sets (a fresh key, or one of the
// seeded completed keys; an account and an amount drawn as the load draws
// them), the stored answer's body built around the charge row's seq.
var (
	slapValues = map[string]string{"key": "@k", "fingerprint": "'fp'", "account": "@acct", "amount": "@amount",
		"currency": "'" + load.Currency + "'", "attempt": "''", "replica": "0", "status": "201",
		"body": `CONCAT('{"id":"ch_', LAST_INSERT_ID(), '","account":"', @acct, '","amount":', @amount, ',"currency":"` +
			load.Currency + `","balance":` + strconv.FormatInt(load.Opening, 10) + `}')`}
	slapDraw = "@acct = CONCAT('acct-', CAST(1 + FLOOR(RAND() * " + strconv.Itoa(load.DefaultAccounts) + ") AS UNSIGNED)), " +
		"@amount = CAST(100 + FLOOR(RAND() * 9900) AS UNSIGNED)"
	slapFreshKey  = "SET @k = CONCAT('slap-', CAST(FLOOR(RAND() * 1000000000000) AS UNSIGNED), '-', UUID_SHORT()), " + slapDraw
	slapReplayKey = "SET @k = CONCAT('seed-', CAST(1 + FLOOR(RAND() * " + strconv.Itoa(seedKeys) + ") AS UNSIGNED)), " + slapDraw
)

// SlapScript writes innodb-tx's transactions as mysqlslap's query file:
// one line per round trip (the newline is mysqlslap's delimiter), the
// statements of the round trip on it as innodb-tx joins them, their
// parameters as user variables, a fresh key's transaction or a retry's
// as the cycle has them. The first round trip of each transaction starts
// with the statement that draws its variables. A retry's claim fails as a
// duplicate (1062), which stops the statements after it, as for innodb-tx;
// mysqlslap, which stops at an error in a query's first statement, reads
// one in a later statement as the end of the query's results and goes on.
func SlapScript(c SlapCycle) string {
	var b strings.Builder
	for i := range c.Fresh + c.Replays {
		script, draw := innodb.TxFresh(), slapFreshKey
		if c.replay(i) {
			script, draw = innodb.TxReplay(), slapReplayKey
		}
		for j, trip := range script {
			sql := slapTrip(trip)
			if j == 0 {
				sql = draw + "; " + sql
			}
			b.WriteString(sql + "\n")
		}
	}
	return b.String()
}

// slapTrip is one round trip on one line, its placeholders replaced.
func slapTrip(trip []strategy.Statement) string {
	out := make([]strategy.Statement, len(trip))
	for i, st := range trip {
		n := 0
		out[i].SQL = placeholderQ.ReplaceAllStringFunc(st.SQL, func(string) string {
			n++
			return slapValues[st.Params[n-1]]
		})
	}
	return strings.Join(strings.Fields(innodb.RoundTrip(out)), " ")
}

var placeholderQ = regexp.MustCompile(`\?`)

// queriesPerTx is how many queries (round trips) a transaction sends.
var queriesPerTx = len(innodb.TxFresh())

// prepare empties the ledger and seeds the accounts and completed keys.
func (s *mysqlslap) prepare(ctx context.Context) error {
	if err := innoledger.Reset(ctx, s.db); err != nil {
		return err
	}
	for _, a := range load.NewGen(load.Config{}).Accounts() {
		if err := innoledger.OpenAccount(ctx, s.db, a.ID, a.Currency, a.Opening); err != nil {
			return fmt.Errorf("mysqlslap ledger: %w", err)
		}
	}
	rows := make([]string, seedKeys)
	for i := range rows {
		rows[i] = fmt.Sprintf(`('seed-%d', 'fp', 201, '{"id":"ch_0"}')`, i+1)
	}
	if _, err := s.db.ExecContext(ctx, "INSERT INTO idempotency_keys (`key`, fingerprint, response_status, response_body) VALUES "+
		strings.Join(rows, ", ")); err != nil {
		return fmt.Errorf("mysqlslap ledger: %w", err)
	}
	return nil
}

// take runs mysqlslap for about the configured duration, one client per
// sender, then checks that its transactions did what innodb-tx's do.
func (s *mysqlslap) take(ctx context.Context, round int) (sample, error) {
	if s.rate == 0 {
		if err := s.pilot(ctx, round); err != nil {
			return sample{}, err
		}
	}
	perCycle := float64(s.cfg.Concurrency * (s.cycle.Fresh + s.cycle.Replays))
	cycles := int(math.Ceil(s.rate * s.cfg.Duration.Seconds() / perCycle))
	if err := s.prepare(ctx); err != nil {
		return sample{}, err
	}
	w := s.cfg.cpu.begin()
	run, res, err := s.run(ctx, fmt.Sprintf("mysqlslap-%d.txt", round+1), min(max(cycles, 1), slapMaxCycles))
	if err != nil {
		return sample{}, err
	}
	cpu := w.end(run.cpu)
	if err := s.check(ctx, res); err != nil {
		return sample{}, err
	}
	s.rate = res.tps()
	return sample{value: res.tps(), count: res.transactions(), cpu: cpu}, nil
}

// pilot runs a cycle per client, then four times more, until a run lasts
// slapPilot: the rate that sizes the first measured run.
func (s *mysqlslap) pilot(ctx context.Context, round int) error {
	if err := s.prepare(ctx); err != nil {
		return err
	}
	for cycles := 1; cycles <= slapMaxCycles; cycles *= 4 {
		_, res, err := s.run(ctx, fmt.Sprintf("mysqlslap-%d-pilot-%d.txt", round+1, cycles), cycles)
		if err != nil {
			return err
		}
		if res.seconds >= slapPilot.Seconds() || cycles*4 > slapMaxCycles {
			s.rate = res.tps()
			return nil
		}
	}
	return nil
}

// run runs mysqlslap: every client the cycle cycles times.
func (s *mysqlslap) run(ctx context.Context, out string, cycles int) (toolRun, SlapResult, error) {
	queries := s.cfg.Concurrency * cycles * (s.cycle.Fresh + s.cycle.Replays) * queriesPerTx
	run, err := runTool(ctx, s.cfg, out, nil, s.cfg.Mysqlslap, "--defaults-file="+s.conf, "--create-schema="+s.schema,
		"--no-drop", "--concurrency="+strconv.Itoa(s.cfg.Concurrency), "--iterations=1",
		"--number-of-queries="+strconv.Itoa(queries), "--delimiter=\n", "--query="+s.query)
	if err != nil {
		return run, SlapResult{}, err
	}
	res, err := ParseSlap(run.out)
	if err == nil && res.Clients*res.PerClient != queries {
		err = fmt.Errorf("mysqlslap ran %d queries on %d clients, want %d", res.Clients*res.PerClient, res.Clients, queries)
	}
	return run, res, err
}

// check holds a run to what innodb-tx does: one charge and one key row
// answered 201 per fresh key, none for a retry of a completed key.
// mysqlslap goes on past an error in a statement after a query's first,
// so a script whose statements failed would otherwise look fast.
func (s *mysqlslap) check(ctx context.Context, r SlapResult) error {
	fresh := r.Clients * r.PerClient / queriesPerTx / (s.cycle.Fresh + s.cycle.Replays) * s.cycle.Fresh
	charges, err := innoledger.CountCharges(ctx, s.db)
	if err != nil {
		return err
	}
	var answered int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM idempotency_keys WHERE response_status = 201").Scan(&answered); err != nil {
		return fmt.Errorf("mysqlslap ledger: %w", err)
	}
	if charges != fresh || answered != fresh+seedKeys {
		return fmt.Errorf("mysqlslap on innodb-tx's SQL: %d charges and %d keys answered 201 for %d fresh keys and %d seeded; want one each",
			charges, answered, fresh, seedKeys)
	}
	return nil
}

// SlapResult is what mysqlslap reports of a run of one iteration.
type SlapResult struct {
	Clients, PerClient int     // clients and queries each ran
	seconds            float64 // to run all queries
}

var (
	slapSeconds   = regexp.MustCompile(`(?m)^\s*Average number of seconds to run all queries: ([0-9.]+) seconds`)
	slapClients   = regexp.MustCompile(`(?m)^\s*Number of clients running queries: ([0-9]+)`)
	slapPerClient = regexp.MustCompile(`(?m)^\s*Average number of queries per client: ([0-9]+)`)
)

// ParseSlap reads mysqlslap's report of a run.
func ParseSlap(out []byte) (SlapResult, error) {
	var r SlapResult
	secs, err1 := count(slapSeconds, out, "mysqlslap")
	clients, err2 := count(slapClients, out, "mysqlslap")
	per, err3 := count(slapPerClient, out, "mysqlslap")
	if err := firstErr(err1, err2, err3); err != nil {
		return r, err
	}
	if secs <= 0 {
		return r, fmt.Errorf("mysqlslap ran for %g seconds:\n%s", secs, tail(out))
	}
	return SlapResult{Clients: int(clients), PerClient: int(per), seconds: secs}, nil
}

// transactions is how many transactions the run made.
func (r SlapResult) transactions() float64 {
	return float64(r.Clients*r.PerClient) / float64(queriesPerTx)
}

// tps is the run's transactions per second.
func (r SlapResult) tps() float64 { return r.transactions() / r.seconds }
