package narrate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios/check"
)

// timings lists what varies from run to run and so stays out of the story:
// which attempts each request was, how long things took, the ledger's own
// charge ids, and the whole run's verdict.
func (s *story) timings() []string {
	var out []string
	for _, u := range s.units {
		out = append(out, s.unitTiming(u))
	}
	if g := s.gate; g != nil && g.next != nil {
		out = append(out, fmt.Sprintf("%s went on %s after the gate held it", g.held.u.request(), ms(g.next.at-g.held.at)))
	}
	out = append(out, s.heldTimings()...)
	if c := s.chargeIDs(); c != "" {
		out = append(out, "ledger ids: "+c)
	}
	for _, u := range s.units {
		if in, ok := u.injected(); ok && in.Arg > 0 {
			out = append(out, fmt.Sprintf("fault on %s: %s for %s at %s", u.first().ID, in.Action, in.Arg, in.Point))
		}
	}
	return append(out, s.runTiming())
}

// unitTiming names a unit's attempts and their durations.
func (s *story) unitTiming(u *unit) string {
	first, last := u.first(), u.last()
	ids := first.ID
	if len(u.tries) > 1 {
		ids = fmt.Sprintf("%s to %s (%d tries)", first.ID, last.ID, len(u.tries))
	}
	text := fmt.Sprintf("%s = %s (op %d): sent at %s, ", u.request(), ids, u.op.id, ms(first.Call))
	if last.Status != 0 {
		text += fmt.Sprintf("%d after %s on the client", last.Status, ms(last.Return-first.Call))
	} else {
		text += fmt.Sprintf("no answer after %s on the client", ms(last.Return-first.Call))
	}
	if first.Server != nil && last.Server != nil {
		text += fmt.Sprintf(", %s on %s", ms(last.Server.End-first.Server.Start), u.replica())
	}
	return text
}

// chargeIDs maps the story's charge labels to the ledger's ids.
func (s *story) chargeIDs() string {
	type pair struct{ label, id string }
	var pairs []pair
	for id, l := range s.label {
		pairs = append(pairs, pair{l, id})
	}
	sort.Slice(pairs, func(i, j int) bool {
		return len(pairs[i].label) < len(pairs[j].label) ||
			len(pairs[i].label) == len(pairs[j].label) && pairs[i].label < pairs[j].label
	})
	var parts []string
	for _, p := range pairs {
		parts = append(parts, fmt.Sprintf("charge %s = %s", p.label, p.id))
	}
	return strings.Join(parts, ", ")
}

// runTiming sums up the whole run the story was taken from.
func (s *story) runTiming() string {
	res := s.res
	var counts []string
	for _, name := range check.Anomalies() {
		if n := res.Anomalies[name]; n > 0 {
			counts = append(counts, fmt.Sprintf("%s %d", name, n))
		}
	}
	text := fmt.Sprintf("the whole run: %d requests, verdict %s", res.Requests, res.Verdict)
	if len(counts) > 0 {
		text += " (" + strings.Join(counts, ", ") + ")"
	}
	return text + fmt.Sprintf(", %s", ms(s.rec.Took))
}
