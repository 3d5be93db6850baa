package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
)

// reply is one HTTP answer.
type reply struct {
	status int
	header http.Header
	body   string
}

// do sends one request on a fresh connection (no hidden re-sends).
func do(t *testing.T, method, url, key, body string) reply {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Close = true
	if key != "" {
		req.Header.Set(api.HeaderKey, key)
	}
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

func decode[T any](t *testing.T, r reply) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(r.body), &v); err != nil {
		t.Fatalf("decode %q: %v", r.body, err)
	}
	return v
}

const charge1250 = `{"account":"acct-1","amount":1250,"currency":"EUR"}`

// TestServesTheContract runs paymentd on the shared stores (a fresh
// database each) with a Postgres-only, a two-store strategy and the
// InnoDB one (its ledger in MariaDB), and drives the API as a trainer's
// curl would.
func TestServesTheContract(t *testing.T) {
	for _, tc := range []struct{ strategy, profile string }{{"pg-tx", "ietf"}, {"redis-pg-guard", "stripe"},
		{"innodb-tx", "ietf"}, {"innodb-tx", "stripe"}} {
		t.Run(tc.strategy+"-"+tc.profile, func(t *testing.T) {
			args, dsn := storeArgs(t, tc.strategy)
			d := startDaemon(t, nil, append(args, "--strategy", tc.strategy, "--profile", tc.profile, "--listen", "127.0.0.1:0")...)
			checkBanner(t, d, tc.strategy, dsn)
			checkReplay(t, d.url, tc.profile)
			checkTopUp(t, d.url)
			checkLedger(t, dsn)
			if r := do(t, "GET", d.url+"/healthz", "", ""); r.status != http.StatusOK {
				t.Errorf("GET /healthz: %d %s", r.status, r.body)
			}
			if code, took := d.interrupt(t, 30*time.Second); code != 0 {
				t.Errorf("exit %d after SIGINT (in %v); want 0:\n%s", code, took, d.output())
			}
			if d.line("paymentd: stopped") == "" {
				t.Errorf("no stopped line:\n%s", d.output())
			}
		})
	}
}

func checkBanner(t *testing.T, d *daemon, strategy, dsn string) {
	t.Helper()
	if !strings.HasPrefix(d.url, "http://127.0.0.1:") {
		t.Fatalf("start line names %q; want a loopback URL:\n%s", d.url, d.output())
	}
	start := d.line("paymentd: strategy " + strategy + " on ")
	stores := "(postgres: " + dsn + ", redis: " + services.RedisURL + ")"
	if onInnoDB(dsn) {
		stores = "(mysql: " + dsn + ")" // Redis and Postgres are not its stores
	}
	if !strings.HasSuffix(start, stores) {
		t.Errorf("start line %q does not name the stores %s", start, stores)
	}
	want := "paymentd: ledger: --ledger-url '" + dsn + "' --ledger-query '" + ledgerQuery + "'"
	if got := d.line("paymentd: ledger: "); got != want {
		t.Errorf("ledger line:\n got %s\nwant %s", got, want)
	}
	if got, want := d.line("paymentd: top-up: "), "paymentd: top-up: --topup-path '/v1/accounts/{{.Account}}/top-ups'"; got != want {
		t.Errorf("top-up line:\n got %s\nwant %s", got, want)
	}
	if d.line("paymentd: warning") != "" {
		t.Errorf("a loopback listener got a warning:\n%s", d.output())
	}
}

// checkTopUp: a charge over acct-2's balance is declined; a top-up pays
// that much in; the declined key's retry still gets the stored refusal,
// and a fresh key's charge of it goes through.
func checkTopUp(t *testing.T, base string) {
	t.Helper()
	big := `{"account":"acct-2","amount":1500000,"currency":"EUR"}`
	if r := do(t, "POST", base+api.PathCharges, "big-1", big); r.status != api.StatusDeclined {
		t.Fatalf("15,000.00 of 10,000.00: %d %s; want %d", r.status, r.body, api.StatusDeclined)
	}
	r := do(t, "POST", base+api.TopUpPath("acct-2"), "", `{"amount":1500000}`)
	if a := decode[api.Account](t, r); r.status != http.StatusOK || a.Balance != 2_500_000 {
		t.Fatalf("top-up: %d %s; want 200 with balance 2500000", r.status, r.body)
	}
	if r := do(t, "POST", base+api.PathCharges, "big-1", big); r.status != api.StatusDeclined || r.header.Get(api.HeaderReplayed) != "true" {
		t.Errorf("the declined key after the top-up: %d %s (replayed %q); want the stored refusal", r.status, r.body, r.header.Get(api.HeaderReplayed))
	}
	if r := do(t, "POST", base+api.PathCharges, "big-2", big); r.status != http.StatusCreated {
		t.Errorf("a fresh key after the top-up: %d %s; want 201", r.status, r.body)
	}
}

// checkReplay: a charge, its replay, a payload mismatch, a missing key and
// the account's balance.
func checkReplay(t *testing.T, base, profile string) {
	t.Helper()
	first := do(t, "POST", base+api.PathCharges, "order-42", charge1250)
	second := do(t, "POST", base+api.PathCharges, "order-42", charge1250)
	if first.status != http.StatusCreated || second.status != http.StatusCreated {
		t.Fatalf("charge then retry: %d %s / %d %s; want 201 twice", first.status, first.body, second.status, second.body)
	}
	c1, c2 := decode[api.Charge](t, first), decode[api.Charge](t, second)
	if c1.ID == "" || c1.ID != c2.ID || first.body != second.body {
		t.Errorf("retry answered %s; want the replay of %s", second.body, first.body)
	}
	if got := second.header.Get(api.HeaderReplayed); got != "true" {
		t.Errorf("retry: %s = %q; want true", api.HeaderReplayed, got)
	}
	p, _ := api.ProfileByName(profile)
	mismatch := do(t, "POST", base+api.PathCharges, "order-42", `{"account":"acct-1","amount":9999,"currency":"EUR"}`)
	if mismatch.status != p.Mismatch {
		t.Errorf("payload mismatch: %d %s; want %d", mismatch.status, mismatch.body, p.Mismatch)
	}
	checkMissingKey(t, base, p)
	acct := decode[api.Account](t, do(t, "GET", base+api.PathAccounts+"acct-1", "", ""))
	if want := 1_000_000 - 1250 - missingKeyDebit(p); acct.Balance != want || acct.Currency != "EUR" {
		t.Errorf("acct-1 = %+v; want balance %d EUR", acct, want)
	}
}

// missingKeyDebit is what checkMissingKey charged.
func missingKeyDebit(p api.Profile) int64 {
	if p.MissingKey == 0 {
		return 1250
	}
	return 0
}

func checkMissingKey(t *testing.T, base string, p api.Profile) {
	t.Helper()
	r := do(t, "POST", base+api.PathCharges, "", charge1250)
	want := p.MissingKey
	if want == 0 {
		want = http.StatusCreated
	}
	if r.status != want {
		t.Errorf("no key: %d %s; want %d", r.status, r.body, want)
	}
}

// checkLedger reads the ledger with the query paymentd prints, as an
// external run would (Postgres or MariaDB, as the URL says): one keyed
// charge for order-42, and acct-2 credited with checkTopUp's top-up.
func checkLedger(t *testing.T, url string) {
	t.Helper()
	n := 0
	for _, r := range ledgerRows(t, url) {
		if r.key == "order-42" {
			n++
			if r.account != "acct-1" || r.amount != 1250 || !strings.HasPrefix(r.id, "ch_") {
				t.Errorf("order-42 charged %s %d as %q; want acct-1 1250 as a ch_ id", r.account, r.amount, r.id)
			}
		}
	}
	if n != 1 {
		t.Errorf("order-42 has %d ledger charges; want 1", n)
	}
	if got := credited(t, url, "acct-2"); got != 1_500_000 {
		t.Errorf("acct-2 credited %d in the ledger; want the top-up's 1500000", got)
	}
}
