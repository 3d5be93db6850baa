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
// order (a finding about requests without a key picks its first op), else
// the plan's first op. It returns the key ("" for a keyless story) and the
// ops of the story, plan ops first, then probes.
func pick(rec scenarios.Record, res scenarios.Result) (string, []int) {
	attempts := rec.Obs.History.Attempts
	opOf := make(map[string]int, len(attempts))
	for _, a := range attempts {
		opOf[baseID(a.ID)] = a.Op
	}
	best, key := -1, ""
	for _, f := range res.Findings {
		op := findingOp(rec, f, opOf)
		if op >= 0 && (best < 0 || op < best) {
			best, key = op, f.Key
			if f.Key == "" && len(f.Attempts) == 0 {
				key = opKey(rec, op) // an account's finding: the story of the op's key
			}
		}
	}
	if best < 0 {
		if len(rec.Plan.Ops) == 0 {
			return "", nil
		}
		best, key = 0, rec.Plan.Ops[0].Key
	}
	if key == "" {
		return "", []int{best}
	}
	return key, opsWithKey(rec, key)
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
