package reports_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/history"
)

// TestHTMLShowsLatencyPerStrategy: the table follows the matrix's order
// of strategies (not the alphabet), each strategy named once over its rows.
func TestHTMLShowsLatencyPerStrategy(t *testing.T) {
	l := results.NewLatencies()
	l.Add("pg-tx", []history.Attempt{{Return: 3 * time.Millisecond, Status: 201}})
	l.Add("redis-pg-guard", []history.Attempt{{Return: 6 * time.Millisecond, Status: 409}})
	doc := results.Document{Latency: l.Summary(), Results: []scenarios.Result{
		res("redis-pg-guard", "dropped-response", 1, scenarios.Pass, true), res("pg-tx", "dropped-response", 1, scenarios.Pass, true)}}
	var b strings.Builder
	if err := reports.WriteHTML(&b, doc); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	guard := strings.Index(out, `<th scope="rowgroup" rowspan="2">redis-pg-guard</th><td>every answer</td>`)
	tx := strings.Index(out, `<th scope="rowgroup" rowspan="2">pg-tx</th><td>every answer</td>`)
	if guard < 0 || tx < 0 || guard > tx {
		t.Errorf("latency rows not grouped in the matrix's order (redis-pg-guard at %d, pg-tx at %d)", guard, tx)
	}
	for _, want := range []string{`id="latency"`, "<td>first 2xx</td>", "<td>409 in flight</td>", `class="p99" style="width: 100.0%"`, "<th>p99.9 (ms)</th>"} {
		if !strings.Contains(out, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if n := strings.Count(out, ">pg-tx</th>"); n != 2 { // its matrix row, its latency group
		t.Errorf("pg-tx named %d times; want once in the matrix, once in the latency table", n)
	}
}
