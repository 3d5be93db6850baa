package conformance

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// Misbehaves is the class of a client that broke a rule of its half of
// the contract that moves no money by itself: no back-off after a 409, a
// Retry-After ignored, a final refusal retried, a key or a body changed
// where it should not.
const Misbehaves Class = "misbehaves"

// ClientRow is one client of the client table over the seeds run.
type ClientRow struct {
	Client Client
	Class  Class
	// Results are the client's results, one per seed, in seed order.
	Results []scenarios.Result
	// Shown counts, per anomaly, the seeds that showed it.
	Shown map[check.Anomaly]int
	// After lists, per anomaly, the faults met alone by the operations
	// that showed it (each plan deals every fault alone at least once),
	// in the plan's fault order: what the client does on each.
	After map[check.Anomaly][]workload.FrontFault
	// Unproved are the distinct reasons a seed proved nothing.
	Unproved []string
}

// ClientTable is a client conformance run folded into one row per client.
type ClientTable struct {
	Rows  []ClientRow
	Seeds int
}

// NewClientTable judges each run (scenarios.JudgeClient) and folds the
// runs of each client into its row; runs of a client not listed are left
// out, and a client with no run has a row with no results. The table's
// seeds are the runs a row holds (seeds, when none ran).
func NewClientTable(clients []Client, seeds int, recs []scenarios.ClientRecord) ClientTable {
	t := ClientTable{Seeds: seeds}
	for _, c := range clients {
		row := ClientRow{Client: c, Shown: map[check.Anomaly]int{}, After: map[check.Anomaly][]workload.FrontFault{}}
		for _, rec := range recs {
			if rec.Name == c.Name {
				row.add(rec, scenarios.JudgeClient(rec))
			}
		}
		row.Class = row.class()
		t.Rows = append(t.Rows, row)
	}
	ran := 0 // a saved run says how many seeds it holds
	for _, r := range t.Rows {
		ran = max(ran, len(r.Results))
	}
	if ran > 0 {
		t.Seeds = ran
	}
	return t
}

// add folds one judged run into the row.
func (r *ClientRow) add(rec scenarios.ClientRecord, res scenarios.Result) {
	r.Results = append(r.Results, res)
	slices.SortFunc(r.Results, func(a, b scenarios.Result) int { return cmp.Compare(a.Seed, b.Seed) })
	for a, n := range res.Anomalies {
		if n > 0 {
			r.Shown[a]++
		}
	}
	for _, f := range res.Findings {
		if first := aloneFault(rec.Plan, f.Account); first != "" && !slices.Contains(r.After[f.Anomaly], first) {
			r.After[f.Anomaly] = append(r.After[f.Anomaly], first)
			slices.SortFunc(r.After[f.Anomaly], func(a, b workload.FrontFault) int {
				return slices.Index(workload.FrontFaults, a) - slices.Index(workload.FrontFaults, b)
			})
		}
	}
	for _, u := range res.Assumptions {
		if !slices.Contains(r.Unproved, u) {
			r.Unproved = append(r.Unproved, u)
		}
	}
}

// aloneFault is the one fault the operation on account met ("": none,
// two, or no such operation).
func aloneFault(p workload.ClientPlan, account string) workload.FrontFault {
	for _, o := range p.Ops {
		if o.Account == account && len(o.Faults) == 1 {
			return o.Faults[0]
		}
	}
	return ""
}

// class is the row's class: breaks money if any seed showed an anomaly
// that moves money or the user's knowledge of it, misbehaves if only
// others, inconclusive if a seed proved nothing and none showed one.
func (r ClientRow) class() Class {
	c := Pass
	for a := range r.Shown {
		if ClassOfClient(a) == BreaksMoney {
			return BreaksMoney
		}
		c = Misbehaves
	}
	if c == Pass && len(r.Unproved) > 0 {
		return Inconclusive
	}
	return c
}

// Anomalies are the row's anomalies in the client checker's order.
func (r ClientRow) Anomalies() []check.Anomaly {
	var out []check.Anomaly
	for _, a := range check.ClientAnomalies() {
		if r.Shown[a] > 0 {
			out = append(out, a)
		}
	}
	return out
}

// Scenario is the row's column in results: client mode in its shape.
func (r ClientRow) Scenario() string { return scenarios.ClientScenario(r.Client.Shape) }

// Verdicts are the table's pinned lines, one per client.
func (t ClientTable) Verdicts() []Verdict {
	var out []Verdict
	for _, r := range t.Rows {
		if len(r.Results) == 0 {
			continue
		}
		v := Verdict{Row: r.Client.Name, Scenario: r.Scenario(), Class: r.Class}
		for _, a := range r.Anomalies() {
			v.Anomalies = append(v.Anomalies, string(a))
		}
		out = append(out, v)
	}
	return out
}

// Unexplained lists what no client finding explains: "client: anomaly"
// for an anomaly, "client: inconclusive" for a row that proved nothing,
// and "client: not run" for a row with no result.
func (t ClientTable) Unexplained() []string {
	var out []string
	for _, r := range t.Rows {
		switch {
		case len(r.Results) == 0:
			out = append(out, r.Client.Name+": not run")
		case r.Class == Inconclusive:
			out = append(out, r.Client.Name+": inconclusive ("+strings.Join(r.Unproved, "; ")+")")
		}
		for _, a := range r.Anomalies() {
			if ExplainClient(r.Client.Name, a) == nil {
				out = append(out, r.Client.Name+": "+string(a))
			}
		}
	}
	return out
}

// CompareClients lists how got differs from the pinned want, as Compare
// does, but exactly: a client's behaviour under a seeded plan does not
// depend on timing, so every anomaly pinned must show and no other.
func CompareClients(want, got []Verdict) []string {
	g := map[string]Verdict{}
	for _, v := range got {
		g[v.Row] = v
	}
	var out []string
	for _, v := range want {
		gv, ok := g[v.Row]
		switch {
		case !ok:
			out = append(out, "- "+v.String(), "+ (not run)")
		case gv.String() != v.String():
			out = append(out, "- "+v.String(), "+ "+gv.String())
		}
		delete(g, v.Row)
	}
	for _, v := range got {
		if _, left := g[v.Row]; left {
			out = append(out, "- (not pinned)", "+ "+v.String())
		}
	}
	return out
}

// ClassOfClient is the class a client anomaly gives its row.
func ClassOfClient(a check.Anomaly) Class {
	if check.Define(a).Kind == check.KindMoney {
		return BreaksMoney
	}
	return Misbehaves
}

// WriteClientVerdicts writes the client table's golden file: a comment,
// then a line per client.
func WriteClientVerdicts(w io.Writer, vs []Verdict) error {
	if _, err := fmt.Fprintln(w, "# The verdicts of CLIENTS.md, regenerated by make conformance-clients; the client conformance test fails on a change."); err != nil {
		return err
	}
	for _, v := range vs {
		if _, err := fmt.Fprintln(w, v); err != nil {
			return err
		}
	}
	return nil
}
