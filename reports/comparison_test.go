package reports_test

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
)

// TestComparisonShowsCPU: a measurement whose CPU time per request was
// read gets a row of the CPU block, by part, with the machine's busy share.
func TestComparisonShowsCPU(t *testing.T) {
	m := results.Series{Name: "wrk, pg-tx", Unit: "req/s", Median: 4500, Min: 4000, Max: 5000,
		CPU:  []results.Series{{Name: results.PartPostgres, Median: 275}, {Name: results.PartTotal, Median: 445}},
		Busy: &results.Series{Name: "machine busy", Median: 0.85}}
	var b strings.Builder
	if err := reports.WriteComparison(&b, results.Comparison{Measurements: []results.Series{m}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"CPU per request", "wrk, pg-tx", "275", "445", "85 %"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	m.CPU, m.Busy = nil, nil
	if err := reports.WriteComparison(&b, results.Comparison{Measurements: []results.Series{m}}); err != nil || strings.Contains(b.String(), "CPU per request") {
		t.Errorf("a CPU block without CPU figures: %v\n%s", err, b.String())
	}
}
