package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/scenarios/openapi"
	"github.com/idemchaos/idemchaos/sim/client"
)

// targetFlags describe a user's own service (run and matrix).
type targetFlags struct {
	urls, name, ledgerURL, ledgerQuery string
	accounts, currency                 string
	path, body, keyHeader, success     string
	chargeID, replayHeader             string
	replayCompare, replayIgnore        string
	toxiproxyURL, pgProxy, redisProxy  string
	dynamoDBProxy                      string
	claimTimeout, keyTTL, settle       time.Duration
	powerBudget                        time.Duration
	powerTarget, powerAim              int
	allowRemote, failpoints            bool
	topUpPath, topUpBody               string
	topUpAmount                        int64
	spec                               specFlags
}

func (t *targetFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.urls, "target-url", "", "test your own service at this base URL (http://host:port[/prefix]; comma-separated for replicas) instead of a built-in strategy")
	fs.StringVar(&t.name, "target-name", scenarios.DefaultExternalName, "name of the service in reports")
	fs.StringVar(&t.ledgerURL, "ledger-url", os.Getenv(scenarios.LedgerURLEnv), "URL of the service's ledger: postgres://... (or a key=value DSN), or mysql://... for MySQL/MariaDB (env "+scenarios.LedgerURLEnv+")")
	fs.StringVar(&t.ledgerQuery, "ledger-query", "", "SQL returning one row per charge: idempotency_key, account, amount (optional: id, attempt_id)")
	fs.StringVar(&t.accounts, "accounts", "", "the service's account ids to charge, comma-separated (default acct-1,...,acct-4)")
	fs.StringVar(&t.currency, "currency", "", "currency of the charges (default EUR)")
	fs.StringVar(&t.path, "path", "", "path of the charge endpoint (default /v1/charges)")
	fs.StringVar(&t.body, "body", "", `request body template over {{.Account}} {{.Amount}} {{.Currency}} {{.Key}} {{.Attempt}} (default: the built-in JSON)`)
	fs.StringVar(&t.keyHeader, "key-header", "", "header carrying the idempotency key (default Idempotency-Key)")
	fs.StringVar(&t.success, "success-status", "", "comma-separated statuses that mean charged (default: any 2xx)")
	fs.StringVar(&t.chargeID, "charge-id-field", "", "dotted JSON path of the charge id in a success answer (default id)")
	fs.StringVar(&t.replayHeader, "replay-header", "", "header whose value true marks a replay (default Idempotent-Replayed)")
	fs.StringVar(&t.replayCompare, "replay-compare", "json", "how a replay must repeat the key's first answer: json (as JSON documents, field for field: the same JSON in other bytes is a deviation, shown, never a failure) or bytes (byte for byte)")
	fs.StringVar(&t.replayIgnore, "replay-ignore", "", "fields your service renders anew on every answer, left out of the JSON comparison: comma-separated dotted paths (created,meta.request_id)")
	fs.StringVar(&t.toxiproxyURL, "toxiproxy-url", os.Getenv("IDEMCHAOS_TOXIPROXY_URL"), "your Toxiproxy API, where the --postgres-proxy/--redis-proxy/--dynamodb-proxy proxies live (the harness's own embedded one always sits in front of the service)")
	fs.StringVar(&t.pgProxy, "postgres-proxy", "", "Toxiproxy proxy your service's Postgres traffic goes through (enables Postgres faults; needs --toxiproxy-url)")
	fs.StringVar(&t.redisProxy, "redis-proxy", "", "Toxiproxy proxy your service's Redis traffic goes through (enables Redis faults; needs --toxiproxy-url)")
	fs.StringVar(&t.dynamoDBProxy, "dynamodb-proxy", "", "Toxiproxy proxy your service's DynamoDB traffic goes through (enables DynamoDB faults; needs --toxiproxy-url)")
	fs.DurationVar(&t.claimTimeout, "claim-timeout", scenarios.DefaultClaimTimeout, "the longest your service keeps a key in flight (stuck-key probes wait this long)")
	fs.DurationVar(&t.keyTTL, "key-ttl", 0, "your service's key retention (0: forever)")
	fs.DurationVar(&t.settle, "settle", 0, "after the last request, read the ledger again until it stops changing, for at most this long (default: --claim-timeout)")
	fs.IntVar(&t.powerTarget, "power-target", 0, fmt.Sprintf("same-key overlaps a race-hunting scenario (concurrent-duplicates) must reach for its pass to count "+
		"(0: %d, enough that a race hit by 1 %% of them shows with 95 %% confidence)", scenarios.DefaultPowerTarget))
	fs.IntVar(&t.powerAim, "power-aim", 0, fmt.Sprintf("same-key overlaps a race-hunting scenario goes on sending rounds for while its budget lasts, at least the target "+
		"(0: %d, enough that a race hit by 0.1 %% of them shows with 95 %% confidence)", scenarios.DefaultPowerAim))
	fs.DurationVar(&t.powerBudget, "power-budget", 0, fmt.Sprintf("the longest a race-hunting scenario sends rounds for; short of its target then, it is inconclusive, with its count (0: %s)",
		scenarios.DefaultPowerBudget))
	fs.BoolVar(&t.allowRemote, "allow-remote", false, "allow a target that is not on a loopback address")
	fs.StringVar(&t.topUpPath, "topup-path", "", "path of a POST that pays money into an account of your service, answered 2xx (a template over {{.Account}} {{.Amount}} {{.Currency}}): business-refusal funds the declined charge's account with it")
	fs.StringVar(&t.topUpBody, "topup-body", "", `with --topup-path: the top-up's body template over the same fields (default {"amount":{{.Amount}}})`)
	fs.Int64Var(&t.topUpAmount, "topup-amount", 0, "with --topup-path: the declined charge's amount and its top-up's, in minor units, more than your accounts hold (default: the plan's, just over 10,000.00)")
	t.spec.register(fs)
	fs.BoolVar(&t.failpoints, "failpoints", false, "your service speaks the failpoint protocol (docs/failpoints.md): gates, delays and store faults fire at its named points (forced-race, client-timeout-retry, slow-charge run)")
}

// set reports whether a user's service is the target.
func (t *targetFlags) set() bool { return t.urls != "" }

// stray refuses the flags that describe a user's service when a built-in
// strategy is the target.
func (t *targetFlags) stray() error {
	if t.spec.file != "" {
		return usageErrorf("--openapi describes your own service: give --target-url too")
	}
	return nil
}

// external builds and checks the target description, and names the
// operation of the service's OpenAPI description it was read from (nil:
// no --openapi).
func (t *targetFlags) external() (scenarios.External, *openapi.Operation, error) {
	e, err := t.describe()
	if err != nil {
		return e, nil, err
	}
	op, err := t.spec.shape(&e.Shape)
	if err != nil {
		return e, nil, err
	}
	if err := e.Check(); err != nil {
		return e, nil, usageErrorf("%v", err)
	}
	return e, op, nil
}

// describe reads the flags that describe the target.
func (t *targetFlags) describe() (scenarios.External, error) {
	e := scenarios.External{Name: t.name, LedgerQuery: t.ledgerQuery, Currency: t.currency,
		ClaimTimeout: t.claimTimeout, KeyTTL: t.keyTTL, Settle: t.settle, PostgresProxy: t.pgProxy, RedisProxy: t.redisProxy,
		DynamoDBProxy: t.dynamoDBProxy, Toxiproxy: t.toxiproxyURL, AllowRemote: t.allowRemote, Failpoints: t.failpoints,
		Power: scenarios.PowerGoal{Target: t.powerTarget, Aim: t.powerAim, Budget: t.powerBudget},
		Shape: client.Shape{Path: t.path, Body: t.body, KeyHeader: t.keyHeader, ChargeID: t.chargeID, ReplayHeader: t.replayHeader}}
	e.URLs = splitCSV(t.urls)
	e.Accounts = splitCSV(t.accounts)
	top, err := t.topUp()
	if err != nil {
		return e, err
	}
	e.TopUp = top
	if t.ledgerURL == "" {
		return e, usageErrorf("--ledger-url is required with --target-url (or set %s)", scenarios.LedgerURLEnv)
	}
	if (t.pgProxy != "" || t.redisProxy != "" || t.dynamoDBProxy != "") && t.toxiproxyURL == "" {
		return e, usageErrorf("--postgres-proxy, --redis-proxy and --dynamodb-proxy name proxies of your own Toxiproxy: give --toxiproxy-url too")
	}
	codes, err := statusList(t.success)
	if err != nil {
		return e, err
	}
	e.Shape.Success = codes
	e.Replay, err = replayCompare(t.replayCompare, t.replayIgnore)
	return e, err
}

// topUp reads --topup-path, --topup-body and --topup-amount (nil: none).
func (t *targetFlags) topUp() (*scenarios.TopUp, error) {
	if t.topUpPath == "" {
		if t.topUpBody != "" || t.topUpAmount != 0 {
			return nil, usageErrorf("--topup-body and --topup-amount describe the top-up request: give --topup-path too")
		}
		return nil, nil
	}
	if t.topUpAmount < 0 {
		return nil, usageErrorf("--topup-amount %d: want a positive number of minor units", t.topUpAmount)
	}
	return &scenarios.TopUp{Path: t.topUpPath, Body: t.topUpBody, Amount: t.topUpAmount}, nil
}

func statusList(s string) ([]int, error) {
	var out []int
	for _, f := range splitCSV(s) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 200 || n > 299 {
			return nil, usageErrorf("--success-status %q: want 2xx status codes, comma-separated", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// replayCompare reads --replay-compare and --replay-ignore.
func replayCompare(mode, ignore string) (check.ReplayCompare, error) {
	var r check.ReplayCompare
	switch mode {
	case "bytes":
	case "json", "":
		r = check.DefaultReplay()
	default:
		return r, usageErrorf("--replay-compare %q: want json or bytes", truncateFlag(mode))
	}
	r.Ignore = splitCSV(ignore)
	if len(r.Ignore) > 0 && !r.JSON {
		return r, usageErrorf("--replay-ignore needs the JSON comparison (--replay-compare json, the default): byte for byte, every byte counts")
	}
	if err := r.Check(); err != nil {
		return r, usageErrorf("--replay-ignore: %v", err)
	}
	return r, nil
}

// truncateFlag shortens a flag value for an error line.
func truncateFlag(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// splitCSV splits a comma-separated list, dropping blanks.
func splitCSV(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
