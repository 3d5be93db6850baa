package narrate

import (
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
)

// baseID strips the marker of a hidden re-send from an attempt id.
func baseID(id string) string { return strings.TrimSuffix(id, "#hidden") }

// pick chooses what the story tells: the key of the first finding in plan
// order whose own requests show what the scenario is about (a loaded
// machine may have let one key race where the others show the fault),
// else of the first finding (a finding about requests without a key picks
// its first op); with no finding, the first plan op whose key shows it,
// else the plan's first op. It returns the key ("" for a
// keyless story) and the ops of the story, plan ops first, then probes.
func pick(rec scenarios.Record, res scenarios.Result) (string, []int) {
	attempts := rec.Obs.History.Attempts
	opOf := make(map[string]int, len(attempts))
	for _, a := range attempts {
		opOf[baseID(a.ID)] = a.Op
	}
	shows := exercisedBy(rec)
	best, key, shown := -1, "", false
	for _, f := range res.Findings {
		op := findingOp(rec, f, opOf)
		if op < 0 {
			continue
		}
		k := f.Key
		if k == "" && len(f.Attempts) == 0 {
			k = opKey(rec, op) // an account's finding: the story of the op's key
		}
		s := k != "" && shows(k)
		if best < 0 || s && !shown || s == shown && op < best {
			best, key, shown = op, k, s
		}
	}
	if best < 0 {
		if len(rec.Plan.Ops) == 0 {
			return "", nil
		}
		best, key = firstShown(rec, shows)
	}
	if key == "" {
		return "", []int{best}
	}
	return key, opsWithKey(rec, key)
}

// firstShown is the first plan op whose key shows what the scenario is
// about, else the plan's first op, and its key.
func firstShown(rec scenarios.Record, shows func(string) bool) (int, string) {
	for _, op := range rec.Plan.Ops {
		if op.Key != "" && shows(op.Key) {
			return op.ID, op.Key
		}
	}
	return rec.Plan.Ops[0].ID, rec.Plan.Ops[0].Key
}

// exercisedBy reports whether a key's own requests show what the cell's
// scenario is about (its Exercise, on the run with that key's attempts
// alone); false for every key when the scenario names no such fact.
func exercisedBy(rec scenarios.Record) func(key string) bool {
	sc, err := rec.Cell.Definition()
	seen := map[string]bool{}
	return func(key string) bool {
		if err != nil || sc.Exercise.Seen == nil {
			return false
		}
		if s, ok := seen[key]; ok {
			return s
		}
		o := rec.Obs
		o.History.Attempts = nil
		for _, a := range rec.Obs.History.Attempts {
			if a.Key == key {
				o.History.Attempts = append(o.History.Attempts, a)
			}
		}
		seen[key] = sc.Exercise.Seen(o)
		return seen[key]
	}
}

// opKey is the key of plan op id.
func opKey(rec scenarios.Record, id int) string {
	for _, op := range rec.Plan.Ops {
		if op.ID == id {
			return op.Key
		}
	}
	return ""
}

// findingOp is the first op a finding names, or -1. A finding about an
// account alone (balance) names the first op charging it.
func findingOp(rec scenarios.Record, f check.Finding, opOf map[string]int) int {
	for _, op := range rec.Plan.Ops {
		if f.Key != "" && op.Key == f.Key || f.Key == "" && len(f.Attempts) == 0 && f.Account != "" && op.Account == f.Account {
			return op.ID
		}
	}
	best := -1
	for _, id := range f.Attempts {
		if op, ok := opOf[baseID(id)]; ok && (best < 0 || op < best) {
			best = op
		}
	}
	return best
}

// opsWithKey lists the plan ops with key, then the other ops (probes) whose
// attempts carry it. A replay probe is told only when it shows something
// the plan's own attempts did not: it made a charge, or it got an answer
// none of them got. Which answer a finding compares with can depend on
// which request the interleaving let back first; this does not, so a demo
// tells the same story every time.
func opsWithKey(rec scenarios.Record, key string) []int {
	var out []int
	seen := map[int]bool{}
	for _, op := range rec.Plan.Ops {
		if op.Key == key {
			out = append(out, op.ID)
			seen[op.ID] = true
		}
	}
	charged := map[string]bool{}
	for _, c := range rec.Obs.Ledger.Charges {
		charged[c.AttemptID] = true
	}
	answers := map[answer]bool{}
	for _, a := range rec.Obs.History.Attempts {
		if a.Key == key && seen[a.Op] && a.Status != 0 {
			answers[answerOf(a)] = true
		}
	}
	for _, a := range rec.Obs.History.Attempts {
		if a.Key != key || seen[a.Op] || a.ReplayProbe && !charged[baseID(a.ID)] && answers[answerOf(a)] {
			continue // an op told is told whole: any of its attempts showing something is enough
		}
		out = append(out, a.Op)
		seen[a.Op] = true
	}
	return out
}

// answer is what an attempt was answered.
type answer struct {
	status       int
	charge, body string
}

func answerOf(a history.Attempt) answer { return answer{a.Status, a.ChargeID, a.Body} }

// attemptsOf lists the attempts of op in the history, for the story key.
func attemptsOf(h history.History, op int, key string) []history.Attempt {
	var out []history.Attempt
	for _, a := range h.Attempts {
		if a.Op == op && a.Key == key {
			out = append(out, a)
		}
	}
	return out
}
