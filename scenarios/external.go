package scenarios

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// External is a user's own service under test, in any language: where it
// listens, the request it expects, and where its ledger can be read. It is
// saved with the cell (without the ledger's URL, which may hold a secret).
type External struct {
	// Name stands where a built-in strategy's name would (default "target").
	Name string `json:"name"`
	// URLs are the service's base URLs, one per replica ("http://host:port").
	URLs  []string     `json:"urls"`
	Shape client.Shape `json:"shape"`
	// LedgerQuery returns one row per charge with the columns
	// idempotency_key, account, amount (optional: id, attempt_id).
	LedgerQuery string `json:"ledger_query"`
	// Accounts are the service's account ids the plan charges (default
	// acct-1..acct-4), in Currency (default EUR).
	Accounts []string `json:"accounts,omitempty"`
	Currency string   `json:"currency,omitempty"`
	// ClaimTimeout is the longest the service keeps a key in flight: a
	// probe sent that long after the faults healed must replay or execute.
	ClaimTimeout time.Duration `json:"claim_timeout_ns"`
	// KeyTTL is the service's documented key retention (0: forever).
	KeyTTL time.Duration `json:"key_ttl_ns,omitempty"`
	// Settle bounds how long after the last request the ledger is read
	// again until it stops changing (0: ClaimTimeout).
	Settle time.Duration `json:"settle_ns,omitempty"`
	// PostgresProxy, RedisProxy and DynamoDBProxy name Toxiproxy proxies
	// the service's store traffic already goes through; they enable the
	// store faults.
	PostgresProxy string `json:"postgres_proxy,omitempty"`
	RedisProxy    string `json:"redis_proxy,omitempty"`
	DynamoDBProxy string `json:"dynamodb_proxy,omitempty"`
	// Toxiproxy is the user's Toxiproxy API those proxies live in ("":
	// the embedded one).
	Toxiproxy string `json:"toxiproxy_url,omitempty"`
	// Failpoints says the service speaks the failpoint protocol
	// (docs/failpoints.md): it reports the named points to the harness,
	// which gates and delays requests there and fires the planned store
	// faults at the point, on the proxies above.
	Failpoints bool `json:"failpoints,omitempty"`
	// AllowRemote lets URLs off loopback be the target (a service in a
	// cluster, say): load and faults then leave this machine.
	AllowRemote bool `json:"allow_remote,omitempty"`
	// Power is what a race-hunting scenario must achieve against the
	// service before its pass counts (zero: the defaults).
	Power PowerGoal `json:"power,omitzero"`
	// Replay is how a replay must repeat the key's first answer: byte for
	// byte (zero), or as JSON with the fields the service renders anew
	// on every answer (a request id, a timestamp) left out.
	Replay check.ReplayCompare `json:"replay_compare,omitzero"`
	// TopUp is how the service is paid into (external_topup.go); nil:
	// scenarios that fund accounts are skipped.
	TopUp *TopUp `json:"top_up,omitempty"`
}

// DefaultExternalName names a target that was given none.
const DefaultExternalName = "target"

// Check reports the first problem with t, or nil: a bad name or URL, a
// URL off loopback that is not allowed, a missing ledger query, timeouts
// out of bounds, a request shape that cannot be rendered.
func (t External) Check() error {
	if err := checkName(t.Name); err != nil {
		return err
	}
	if len(t.URLs) == 0 {
		return fmt.Errorf("no target URL")
	}
	for _, u := range t.URLs {
		if _, err := targetHost(u); err != nil {
			return err
		}
		if err := checkLoopback(u, t.AllowRemote); err != nil {
			return err
		}
	}
	if strings.TrimSpace(t.LedgerQuery) == "" {
		return fmt.Errorf("no ledger query: give one that returns idempotency_key, account, amount per charge")
	}
	if t.ClaimTimeout <= 0 || t.ClaimTimeout > 10*time.Minute {
		return fmt.Errorf("claim timeout %v: want (0, 10m]", t.ClaimTimeout)
	}
	if t.KeyTTL < 0 {
		return fmt.Errorf("key ttl %v: want 0 (forever) or more", t.KeyTTL)
	}
	if t.Settle < 0 || t.Settle > 10*time.Minute {
		return fmt.Errorf("settle %v: want 0 (the claim timeout) to 10m", t.Settle)
	}
	if err := t.Replay.Check(); err != nil {
		return fmt.Errorf("replay comparison: %w", err)
	}
	if err := t.Power.Check(); err != nil {
		return err
	}
	if err := t.checkTopUp(); err != nil {
		return err
	}
	return t.Shape.Check()
}

// targetHost is the host:port of a target URL, which must be plain http.
func targetHost(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("target url: cannot parse it (want http://host:port[/prefix])")
	}
	shown := u.Redacted() // never echo a password
	switch {
	case u.Scheme != "http":
		return "", fmt.Errorf("target url %q: want http://host:port (Toxiproxy sits in front of it, so no https)", shown)
	case u.Port() == "":
		return "", fmt.Errorf("target url %q: give the port (http://host:port)", shown)
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return "", fmt.Errorf("target url %q: want only scheme, host, port and an optional path prefix", shown)
	}
	return u.Host, nil
}

// Endpoint is where replica i of the service listens (host:port) and the
// path prefix of its URL, without a trailing slash.
func (t External) Endpoint(i int) (host, prefix string, err error) {
	host, err = targetHost(t.URLs[i])
	if err != nil {
		return "", "", err
	}
	u, _ := url.Parse(t.URLs[i])
	return host, strings.TrimSuffix(u.Path, "/"), nil
}

// Skip says why scenario sc cannot run against t ("" when it can), naming
// what is missing: replica URLs, the failpoint protocol (Failpoints) for a
// gate or a delay inside the service, a store proxy for a store fault, or
// the service's own TTLs declared as short as the scenario needs them.
func (t External) Skip(sc Scenario) string {
	switch {
	case sc.Failover:
		return "needs the replicated Redis the harness starts and kills itself (built-in strategies only)"
	case sc.Target.Replicas > 1 && !sc.Target.Spread && len(t.URLs) < 2:
		return "needs two or more target URLs (replicas)"
	case sc.Gate != nil && !t.Failpoints:
		return "needs a gate inside the target (failpoints) to force the interleaving: " + failpointsHint
	case t.TopUp == nil && fundsAccounts(sc):
		return topUpHint
	case sc.Target.KeyTTL > 0 && (t.KeyTTL <= 0 || t.KeyTTL > sc.Target.KeyTTL):
		return fmt.Sprintf("needs the service's key TTL at most %s, declared with --key-ttl (start the service with a retention that short)",
			sc.Target.KeyTTL)
	}
	return t.skipFaults(sc)
}

// failpointsHint is how a user gives what a gate or a delay needs.
const failpointsHint = "give --failpoints, for a service that speaks the failpoint protocol (docs/failpoints.md)"

// skipFaults: a store-link cut needs the matching proxy; a scenario whose
// in-target faults the service cannot carry (a delay or a latency needs the
// failpoint protocol) runs without them only if it has other faults left;
// a latency meant to outlive the claim needs the service's claim shorter.
func (t External) skipFaults(sc Scenario) string {
	plan := sc.Plan(workload.Seeded(0, "needs/"+sc.Name), Params{Replicas: max(1, len(t.URLs))})
	var dropped string
	left := 0
	for _, f := range plan.Faults() {
		in := f.Inject
		if in.IsZero() {
			left++
			continue
		}
		why := t.needs(sc, in)
		switch {
		case why == "":
			left++
		case in.Action.CutsLink() || t.carries(in):
			return why // a cut is the scenario's point; a carried latency must outlive the claim
		default:
			dropped = why
		}
	}
	if left == 0 && dropped != "" {
		return dropped
	}
	return ""
}

const pgProxyHint = "--toxiproxy-url and --postgres-proxy NAME, the proxy the service's Postgres traffic goes through"

// needs says what injection in of scenario sc needs of t that t lacks ("":
// nothing).
func (t External) needs(sc Scenario, in api.Injection) string {
	switch in.Action {
	case api.PGCut:
		if t.PostgresProxy == "" {
			return "needs a Postgres link: " + pgProxyHint
		}
	case api.RedisCut:
		if t.RedisProxy == "" {
			return "needs a Redis link: --toxiproxy-url and --redis-proxy NAME, the proxy the service's Redis traffic goes through"
		}
	case api.DynamoDBCut:
		if t.DynamoDBProxy == "" {
			return "needs a DynamoDB link: --toxiproxy-url and --dynamodb-proxy NAME, the proxy the service's DynamoDB traffic goes through"
		}
	case api.Delay:
		if !t.Failpoints && !sc.Outlast {
			return "needs a delay inside the target (failpoints) to outlast the client: " + failpointsHint
		}
	case api.PGLatency:
		return t.latencyNeeds(sc, in)
	case api.PGDropReply:
		var need []string
		if t.PostgresProxy == "" {
			need = append(need, pgProxyHint)
		}
		if !t.Failpoints {
			need = append(need, "--failpoints, a service that speaks the failpoint protocol (docs/failpoints.md): "+
				"the moment before the COMMIT is inside the service, out of reach from outside")
		}
		if len(need) > 0 {
			return "needs the answer to the charge's COMMIT lost on the link to the service's database: " + strings.Join(need, "; and ")
		}
	case api.StandbyLag, api.PGCrash:
		return "needs idemchaos's own replicated Postgres (a hot standby, a primary it can crash): built-in strategies only"
	}
	return ""
}

// latencyNeeds: Postgres latency needs the Postgres proxy (with the
// failpoint protocol it is added at the point inside the service, without
// it from outside, as the faulted request is sent); a scenario that
// shortens the claim below the latency (slow-charge) means the charge to
// outlive the claim, so the service's own claim TTL, declared with
// --claim-timeout, must be shorter.
func (t External) latencyNeeds(sc Scenario, in api.Injection) string {
	var need []string
	if t.PostgresProxy == "" {
		need = append(need, pgProxyHint)
	}
	outlive := sc.Target.ClaimTTL > 0 && sc.Target.ClaimTTL < in.Arg
	if outlive && t.ClaimTimeout >= in.Arg {
		need = append(need, fmt.Sprintf("the service's claim TTL under %s, declared with --claim-timeout (start the service with a claim TTL that short)", in.Arg))
	}
	if len(need) == 0 {
		return ""
	}
	what := fmt.Sprintf("needs %s of Postgres latency on the link to the service's Postgres", in.Arg)
	if outlive {
		what += ", outliving the service's claim"
	}
	return what + ": " + strings.Join(need, "; and ")
}

// carries reports whether the service can carry an injection: a cut or a
// latency on a store proxy (from outside, or at the point with the
// failpoint protocol), a delay at the point.
func (t External) carries(in api.Injection) bool {
	switch in.Action {
	case api.PGCut:
		return t.PostgresProxy != ""
	case api.RedisCut:
		return t.RedisProxy != ""
	case api.DynamoDBCut:
		return t.DynamoDBProxy != ""
	case api.PGLatency:
		return t.PostgresProxy != ""
	case api.PGDropReply:
		return t.PostgresProxy != "" && t.Failpoints
	case api.StandbyLag, api.PGCrash:
		return false
	}
	return t.Failpoints
}

// AccountIDs are the service's accounts a run charges: Accounts, else
// the built-in plans' (acct-1..acct-4).
func (t External) AccountIDs() []string {
	if len(t.Accounts) > 0 {
		return t.Accounts
	}
	out := make([]string, accounts)
	for i := range out {
		out[i] = workload.AccountID(i + 1)
	}
	return out
}

// adapt turns a built-in plan into one for t: the service's accounts and
// currency, replicas folded onto its URLs, and in-target faults it cannot
// carry (delays and latency, without the failpoint protocol) dropped.
// Store cuts stay: Skip keeps a plan away whose cuts lack their proxy.
func (t External) adapt(plan workload.Plan) workload.Plan {
	names := map[string]string{}
	for i, a := range plan.Accounts {
		if len(t.Accounts) > 0 {
			names[a.ID] = t.Accounts[i%len(t.Accounts)]
		}
	}
	plan.Accounts = nil // the service opens its own
	ops := make([]workload.Op, len(plan.Ops))
	for i, op := range plan.Ops {
		if n, ok := names[op.Account]; ok {
			op.Account = n
		}
		if t.Currency != "" {
			op.Currency = t.Currency
		}
		op.Tries = append([]workload.Try(nil), op.Tries...)
		for j := range op.Tries {
			op.Tries[j].Replica %= len(t.URLs)
			if in := op.Tries[j].Inject; !in.Action.CutsLink() && !t.carries(in) {
				op.Tries[j].Inject = api.Injection{}
			}
		}
		ops[i] = op
	}
	plan.Ops = ops
	return plan
}

// SkipError says a scenario cannot run against an external target, and why.
type SkipError struct {
	Scenario, Reason string
}

func (e *SkipError) Error() string {
	return fmt.Sprintf("scenario %s skipped: %s", e.Scenario, e.Reason)
}

// externalDefaults: an external target's replicas are its URLs, its
// timeouts are the ones it declares.
func (c Cell) externalDefaults() Cell {
	if c.Profile.Name == "" {
		c.Profile = api.IETF
	}
	c.Replicas = len(c.Target.URLs)
	c.ClaimTTL, c.KeyTTL = c.Target.ClaimTimeout, c.Target.KeyTTL
	if c.Strategy == "" {
		c.Strategy = c.Target.Name
	}
	return c
}

// SettleBound is how long the ledger is given to stop changing after the
// last request.
func (t External) SettleBound() time.Duration {
	if t.Settle > 0 {
		return t.Settle
	}
	return t.ClaimTimeout
}
