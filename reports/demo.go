package reports

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/narrate"
)

// TimingsHeader opens the section of a demo that varies from run to run;
// everything above it is the same on every run of the same seed.
const TimingsHeader = "timings (these vary from run to run; the story above does not):"

// Demo is a told run as the room sees it.
type Demo struct {
	Story narrate.Narrative
	Doc   string // what the scenario does
	Runs  int    // runs it took to force the interleaving
	Of    int    // the most runs allowed
}

// WriteDemo prints the story, what its anomalies mean, the diagram and,
// if timings, what varies from run to run.
func WriteDemo(w io.Writer, d Demo, timings bool) error {
	fmt.Fprintf(w, "demo: %s\n%s\n\n", d.Story.Title, d.Doc)
	fmt.Fprint(w, d.Story.Text())
	for _, name := range d.Story.Anomalies {
		e := Explain(name)
		fmt.Fprintf(w, "\n%s\n", e.Title)
		for _, p := range [][2]string{{"What happened", e.What}, {"Why", e.Why}, {"How to avoid it", e.Avoid}} {
			fmt.Fprint(w, wrap(p[0]+": "+p[1], "  ", 100))
		}
	}
	fmt.Fprintf(w, "\n```mermaid\n%s```\n", d.Story.Mermaid)
	if !timings {
		return nil
	}
	fmt.Fprintf(w, "\n%s\n", TimingsHeader)
	if d.Runs > 1 {
		fmt.Fprintf(w, "  run %d of at most %d: the gate of the earlier runs gave up before the other request committed\n",
			d.Runs, d.Of)
	}
	if d.Story.Unforced {
		fmt.Fprintln(w, "  this run's gate gave up before the other request committed: the interleaving was not forced")
	}
	for _, t := range d.Story.Timings {
		fmt.Fprintf(w, "  %s\n", t)
	}
	return nil
}

// WriteDemoList prints which demo shows which anomaly class, and each
// scenario's default strategy.
func WriteDemoList(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ANOMALY\tDEMO\tWHAT IT SHOWS")
	for _, l := range scenarios.Lessons() {
		cmd := "(none)"
		if l.Scenario != "" {
			cmd = fmt.Sprintf("idemchaos demo %s --strategy %s", l.Scenario, l.Strategy)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", l.Anomaly, cmd, l.Shows)
	}
	fmt.Fprintln(tw, "SCENARIO\tDEFAULT STRATEGY\t")
	for _, sc := range scenarios.Names() {
		fmt.Fprintf(tw, "  %s\t%s\t\n", sc, scenarios.DemoStrategy(sc))
	}
	return tw.Flush()
}

// wrap breaks text into lines of at most width columns, each indented.
func wrap(text, indent string, width int) string {
	var b strings.Builder
	line := indent
	for _, word := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(word) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	b.WriteString(line + "\n")
	return b.String()
}
