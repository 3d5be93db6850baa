package scenarios

import (
	"fmt"
	"net/url"
	"strings"
	"time"

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
	// PostgresProxy and RedisProxy name Toxiproxy proxies the service's
	// store traffic already goes through; they enable the store faults.
	PostgresProxy string `json:"postgres_proxy,omitempty"`
	RedisProxy    string `json:"redis_proxy,omitempty"`
	// Toxiproxy is the user's Toxiproxy API those proxies live in ("":
	// the embedded one).
	Toxiproxy string `json:"toxiproxy_url,omitempty"`
	// AllowRemote lets URLs off loopback be the target (a service in a
	// cluster, say): load and faults then leave this machine.
	AllowRemote bool `json:"allow_remote,omitempty"`
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

// Skip says why scenario sc cannot run against t ("" when it can): some
// faults need the target's internals.
func (t External) Skip(sc Scenario) string {
	switch {
	case sc.Internals != "":
		return sc.Internals
	case sc.Gate != nil:
		return "needs a gate inside the target (failpoints)"
	case sc.Target.Replicas > 1 && len(t.URLs) < 2:
		return "needs two or more target URLs (replicas)"
	}
	return t.skipStores(sc)
}

// skipStores: a scenario whose only faults are store-link faults needs the
// matching proxy.
func (t External) skipStores(sc Scenario) string {
	plan := sc.Plan(workload.Seeded(0, "needs/"+sc.Name), Params{Replicas: max(1, len(t.URLs))})
	for _, f := range plan.Faults() {
		if f.Inject == "" {
			continue
		}
		in, err := api.ParseInjection(f.Inject)
		if err != nil {
			return err.Error()
		}
		if in.Action == api.PGCut && t.PostgresProxy == "" {
			return "needs a Postgres link: --toxiproxy-url and --postgres-proxy NAME, the proxy the service's Postgres traffic goes through"
		}
		if in.Action == api.RedisCut && t.RedisProxy == "" {
			return "needs a Redis link: --toxiproxy-url and --redis-proxy NAME, the proxy the service's Redis traffic goes through"
		}
	}
	return ""
}

// adapt turns a built-in plan into one for t: the service's accounts and
// currency, replicas folded onto its URLs, and in-target faults it cannot
// carry (delays, latency at a failpoint) dropped.
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
			if !carried(op.Tries[j].Inject) {
				op.Tries[j].Inject = ""
			}
		}
		ops[i] = op
	}
	plan.Ops = ops
	return plan
}

// carried: store-link cuts can be applied from outside; the rest needs failpoints.
func carried(inject string) bool {
	in, err := api.ParseInjection(inject)
	return err == nil && in.Action.CutsLink()
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
