package shrink

import (
	"math"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/spec"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// The client policy's defaults (sim/client), for a scenario that keeps them.
const (
	defaultPerTry  = 2 * time.Second
	defaultBackoff = 20 * time.Millisecond
	defaultOpening = 1_000_000 // a scenario file's default (minor units)
)

// Start is the scenario file closest to what a cell ran: its own file when
// it came from one, else one read off its plan (the keys, their
// duplicates, the tries, the share of each fault on each try, the start
// window) with its scenario's retry policy and its target's timeouts. What
// a file cannot say (a gate, chained requests, routes) is left out: the
// shrink first checks the file still fails.
func Start(c scenarios.Cell, plan workload.Plan) (spec.Spec, error) {
	if c.Custom != nil { // renamed: the name seeds the plan, so the start is checked under it
		s := *c.Custom
		s.File = ""
		if !strings.HasPrefix(s.Name, "shrunk-") {
			s.Name = "shrunk-" + s.Name
		}
		return s, nil
	}
	sc, err := c.Definition()
	if err != nil {
		return spec.Spec{}, err
	}
	s := spec.Spec{Name: "shrunk-" + sc.Name, Doc: sc.Doc, Reveals: sc.Reveals, Probe: sc.Probe}
	s.Accounts = accountsOf(plan)
	s.Traffic = trafficOf(plan)
	s.Retries = retriesOf(sc, plan)
	s.Faults = faultsOf(plan)
	claim, keyTTL := c.ClaimTTL, c.KeyTTL
	if keyTTL <= 0 {
		keyTTL = 24 * time.Hour
	}
	s.Target = spec.Target{Replicas: max(c.Replicas, 1), ClaimTTL: spec.Duration(claim), KeyTTL: spec.Duration(keyTTL)}
	return s, nil
}

func accountsOf(plan workload.Plan) spec.Accounts {
	a := spec.Accounts{Count: max(len(plan.Accounts), 1)}
	for _, acc := range plan.Accounts {
		a.Opening = max(a.Opening, acc.Opening)
	}
	if a.Opening <= 0 { // a user's service opens its own accounts
		a.Opening = defaultOpening
	}
	return a
}

// trafficOf counts the plan's payments (a key, or a keyless request), the
// most requests of one key, whether a key's requests are released
// together, the start window and the amounts.
func trafficOf(plan workload.Plan) spec.Traffic {
	perKey, keyless := map[string]int{}, 0
	t := spec.Traffic{Amount: spec.Amount{Min: plan.Ops[0].Amount, Max: plan.Ops[0].Amount}}
	groups := map[int]int{}
	var spread time.Duration
	for _, op := range plan.Ops {
		if op.Key == "" {
			keyless++
		} else {
			perKey[op.Key]++
		}
		if op.Group >= 0 {
			groups[op.Group]++
		}
		spread = max(spread, op.Delay)
		t.Amount.Min, t.Amount.Max = min(t.Amount.Min, op.Amount), max(t.Amount.Max, op.Amount)
	}
	t.Keys = len(perKey) + keyless
	for _, n := range perKey {
		t.Duplicates = max(t.Duplicates, n-1)
	}
	for _, n := range groups {
		t.Together = t.Together || n > 1 && t.Duplicates > 0
	}
	if spread > 0 {
		t.Spread = spec.Duration(spread + time.Millisecond)
	}
	if keyless > 0 {
		t.WithoutKey = float64(keyless) / float64(t.Keys)
	}
	return t
}

func retriesOf(sc scenarios.Scenario, plan workload.Plan) spec.Retries {
	r := spec.Retries{MaxTries: 1, PerTryTimeout: spec.Duration(defaultPerTry), Backoff: spec.Duration(defaultBackoff)}
	for _, op := range plan.Ops {
		r.MaxTries = max(r.MaxTries, op.MaxTries)
	}
	if p := sc.Policy; p.PerTry > 0 {
		r.PerTryTimeout = spec.Duration(p.PerTry)
	}
	if p := sc.Policy; p.Backoff > 0 {
		r.Backoff = spec.Duration(p.Backoff)
	}
	r.MaxBackoff = 10 * r.Backoff
	if p := sc.Policy; p.MaxBackoff >= p.Backoff && p.MaxBackoff > 0 {
		r.MaxBackoff = spec.Duration(p.MaxBackoff)
	}
	return r
}

// faultsOf turns the plan's faults into shares: per try and kind of
// fault, the share of the requests that have that try.
func faultsOf(plan workload.Plan) []spec.Fault {
	type slot struct {
		try    int
		fault  string
		inject api.Injection
	}
	count, order := map[slot]int{}, []slot{}
	for _, f := range plan.Faults() {
		k := slot{f.Try, f.Fault, f.Inject}
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
	}
	var out []spec.Fault
	for _, k := range order {
		eligible := 0
		for _, op := range plan.Ops {
			if op.MaxTries >= k.try {
				eligible++
			}
		}
		share := max(math.Round(1000*float64(count[k])/float64(eligible))/1000, 0.001)
		f := spec.Fault{Try: k.try, Share: share, Kind: spec.KindDropResponse}
		if in := k.inject; !in.IsZero() {
			f.Kind, f.At, f.Duration, f.DropResponse = string(in.Action), string(in.Point), spec.Duration(in.Arg), k.fault != ""
		}
		out = append(out, f)
	}
	return out
}
