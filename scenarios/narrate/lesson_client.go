package narrate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// ClientLesson tells one client of the client lesson step by step, from
// what client mode recorded: each request the server received for the
// operation (its key, what the server did, what the client got), what the
// client told its user, and the ledger. Keys and charges are named in the
// order they appear, so the story is the same on every run. Doubled says
// the operation was charged more than once.
func ClientLesson(r scenarios.ClientLessonRun) (lines []string, doubled bool) {
	say := func(format string, args ...any) {
		lines = append(lines, fmt.Sprintf("%d. ", len(lines)+1)+fmt.Sprintf(format, args...))
	}
	rec := r.Record
	if len(rec.Plan.Ops) == 0 {
		return []string{"1. the lesson's plan holds no operation"}, false
	}
	op := rec.Plan.Ops[0]
	say("the user asks to pay %s %s from %s (operation %s); the client makes the charge and retries a network error",
		check.Money(op.Amount), op.Currency, op.Account, op.ID)
	var keys, charges []string
	for _, q := range rec.Run.Received {
		if q.Op != op.ID {
			continue
		}
		say("%s", clientSend(q, &keys))
		say("%s", clientAnswer(q, &charges, keys))
	}
	for _, t := range rec.Run.Told {
		if t.Op == op.ID {
			say("the client tells its user: %s%s", t.Outcome, detail(t))
		}
	}
	n := 0
	for _, c := range rec.Run.Charges {
		if c.Account == op.Account {
			n++
		}
	}
	doubled = n > 1
	switch {
	case doubled:
		say("DOUBLE CHARGE: %d ledger charges on %s for one payment, %s %s taken too much (%s)", n, op.Account,
			check.Money(int64(n-1)*op.Amount), op.Currency, anomaliesOf(r.Result))
	case n == 1:
		say("one ledger charge on %s: the retry was known for what it was", op.Account)
	default:
		say("no ledger charge on %s", op.Account)
	}
	return lines, doubled
}

// clientSend is a request as the client sent it; keys collects the keys
// in the order they first appear.
func clientSend(q history.Received, keys *[]string) string {
	if q.Key == "" {
		return fmt.Sprintf("try %d: the client sends the charge with no key", q.Try)
	}
	i, fresh := slices.Index(*keys, q.Key), false
	if i < 0 {
		*keys, i, fresh = append(*keys, q.Key), len(*keys), true
	}
	switch {
	case q.Try == 1:
		return fmt.Sprintf("try 1: the client sends the charge with key %s", keyLabel(i))
	case fresh:
		return fmt.Sprintf("try %d: the client sends it again with key %s, a new one: to the server, another payment", q.Try, keyLabel(i))
	}
	return fmt.Sprintf("try %d: the client sends it again with key %s, the same key", q.Try, keyLabel(i))
}

// clientAnswer is what the server did with a request and what the client
// got; charges collects the charge ids in the order they appear.
func clientAnswer(q history.Received, charges *[]string, keys []string) string {
	first := q.Charge != "" && !slices.Contains(*charges, q.Charge)
	if first {
		*charges = append(*charges, q.Charge)
	}
	name := fmt.Sprintf("charge %d", slices.Index(*charges, q.Charge)+1)
	switch {
	case q.Fault == string(workload.DropAfterCommit):
		return fmt.Sprintf("the server charges it (%s) and commits; fault: the connection is reset before the answer: "+
			"the money moved, the client sees a network error", name)
	case q.Status/100 == 2 && !first:
		return fmt.Sprintf("the server finds key %s done and replays its stored answer, %s: no money moves", keyLabel(slices.Index(keys, q.Key)), name)
	case q.Status/100 == 2:
		return fmt.Sprintf("the server charges it: %s, answered %d", name, q.Status)
	case q.Fault != "":
		return fmt.Sprintf("fault %s: the client gets %s", q.Fault, statusText(q.Status))
	}
	return fmt.Sprintf("the server answers %s", statusText(q.Status))
}

func keyLabel(i int) string { return string(rune('A' + i%26)) }

func statusText(status int) string {
	if status == 0 {
		return "no answer (the connection was reset)"
	}
	return fmt.Sprint(status)
}

func detail(t history.Told) string {
	if t.Detail == "" {
		return ""
	}
	return " (" + t.Detail + ")"
}

// anomaliesOf names the anomalies of a client's result.
func anomaliesOf(res scenarios.Result) string {
	var out []string
	for _, a := range check.ClientAnomalies() {
		if res.Anomalies[a] > 0 {
			out = append(out, string(a))
		}
	}
	if len(out) == 0 {
		return "no client anomaly found"
	}
	return strings.Join(out, ", ")
}
