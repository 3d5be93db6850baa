package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/idemchaos/idemchaos/results"
)

// WriteComparison writes the measurements and the ratios as two tables.
func WriteComparison(w io.Writer, r results.Comparison) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "measurement\tunit\tmedian\trange\n")
	for _, m := range r.Measurements {
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f to %.1f\n", m.Name, m.Unit, m.Median, m.Min, m.Max)
	}
	fmt.Fprintf(tw, "\nratio\tmedian\trange\tgoal\n")
	for _, q := range r.Ratios {
		goal := "-"
		if q.Meets != nil {
			goal = fmt.Sprintf(">= %.2f %s", q.Goal, map[bool]string{true: "met", false: "NOT met"}[*q.Meets])
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f to %.2f\t%s\n", q.Name, q.Median, q.Min, q.Max, goal)
	}
	writeCPU(tw, r.Measurements)
	fmt.Fprintf(tw, "\n%d rounds of %s each, %d senders, %.0f %% duplicates; %d CPUs; load average %s before, %s after\n",
		r.Rounds, time.Duration(r.DurationMS)*time.Millisecond, r.Concurrency, r.DupRatio*100, r.Machine.CPUs, r.LoadBefore, r.LoadAfter)
	return tw.Flush()
}

// writeCPU writes the CPU time per request by part, when it was read.
func writeCPU(w io.Writer, ms []results.Series) {
	if !slices.ContainsFunc(ms, func(m results.Series) bool { return len(m.CPU) > 0 }) {
		return
	}
	fmt.Fprintf(w, "\nCPU per request, us (median)\t%s\tmachine busy\n", strings.Join(results.Parts(), "\t"))
	for _, m := range ms {
		cells := make([]string, len(results.Parts()))
		for i, part := range results.Parts() {
			cells[i] = "-"
			for _, c := range m.CPU {
				if c.Name == part {
					cells[i] = fmt.Sprintf("%.0f", c.Median)
				}
			}
		}
		busy := "-"
		if m.Busy != nil {
			busy = fmt.Sprintf("%.0f %%", m.Busy.Median*100)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", m.Name, strings.Join(cells, "\t"), busy)
	}
	fmt.Fprintf(w, "(idemchaos: this process, the target's server and, in idemchaos's own models, its client; tool: wrk, pgbench, mysqlslap or vegeta)\n")
}
