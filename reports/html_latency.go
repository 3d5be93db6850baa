package reports

import "github.com/idemchaos/idemchaos/results"

// htmlLatency is one row of the latency table, with bar widths relative to
// the slowest p99 on the page; Span is the rowspan of the strategy's name,
// on its first row only.
type htmlLatency struct {
	results.Latency
	Span               int
	Answers            string
	P50Width, P99Width float64 // percent
}

// kindWords names the kinds of answers in the table.
var kindWords = map[string]string{results.KindAll: "every answer", results.KindFirst: "first 2xx", results.KindReplay: "replayed 2xx", results.KindConflict: "409 in flight"}

// latencyRows lists the latencies grouped by strategy, the strategies in
// the matrix's order (any other after them, as they came).
func latencyRows(ls []results.Latency, order []string) []htmlLatency {
	slowest := 0.0
	byStrategy := map[string][]results.Latency{}
	var seen []string
	for _, l := range ls {
		slowest = max(slowest, l.P99)
		if _, ok := byStrategy[l.Strategy]; !ok {
			seen = append(seen, l.Strategy)
		}
		byStrategy[l.Strategy] = append(byStrategy[l.Strategy], l)
	}
	var out []htmlLatency
	for _, st := range append(append([]string(nil), order...), seen...) {
		group := byStrategy[st]
		delete(byStrategy, st)
		for i, l := range group {
			h := htmlLatency{Latency: l, Answers: kindWords[l.Kind]}
			if h.Answers == "" {
				h.Answers = l.Kind
			}
			if i == 0 {
				h.Span = len(group)
			}
			if slowest > 0 {
				h.P50Width, h.P99Width = 100*l.P50/slowest, 100*l.P99/slowest
			}
			out = append(out, h)
		}
	}
	return out
}
