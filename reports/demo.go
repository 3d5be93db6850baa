package reports

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/scenarios/narrate"
)

// TimingsHeader opens the section of a demo that varies from run to run;
// everything above it is the same on every run of the same seed.
const TimingsHeader = "timings (these vary from run to run; the story above does not):"

// Demo is a told run as the room sees it.
type Demo struct {
	Story    narrate.Narrative
	Strategy string // the strategy shown: the explanations say why it, not another, shows each anomaly
	Doc      string // what the scenario does
	Runs     int    // runs it took to force the interleaving
	Of       int    // the most runs allowed
}

// DemoWidth is the widest a demo is, for a room's screen.
const DemoWidth = 100

// WriteDemo prints the story, what its anomalies mean for the strategy
// shown, the diagram and, if timings, what varies from run to run; prose
// wraps at v's width (at most DemoWidth), the diagram's lines stay whole.
func WriteDemo(w io.Writer, d Demo, timings bool, v View) error {
	limit := DemoWidth
	if v.Width > 0 {
		limit = min(v.Width, DemoWidth)
	}
	fmt.Fprint(w, v.paint(toneStrong, "demo: "+d.Story.Title)+"\n"+wrapWords("", "", d.Doc, limit)+"\n")
	for _, line := range d.Story.Lines {
		num, text, _ := strings.Cut(line, " ")
		fmt.Fprint(w, wrapWords(num+" ", strings.Repeat(" ", width(num)+1), emphasise(v, text, d.Story.Anomalies), limit))
	}
	for _, name := range d.Story.Anomalies {
		e := Explain(name)
		fmt.Fprintf(w, "\n%s\n", v.paint(toneBroken, e.Title))
		for _, p := range [][2]string{{"What happened", e.What}, {"Why", e.WhyFor(d.Strategy)}, {"How to avoid it", e.Avoid}} {
			fmt.Fprint(w, wrapWords("  "+v.paint(toneStrong, p[0]+":")+" ", "  ", p[1], limit))
		}
	}
	fmt.Fprintf(w, "\n```mermaid\n%s```\n", d.Story.Mermaid)
	if !timings {
		return nil
	}
	fmt.Fprintf(w, "\n%s\n", TimingsHeader)
	if d.Runs > 1 {
		fmt.Fprint(w, wrapWords("  ", "    ", fmt.Sprintf("run %d of at most %d: the gate of the earlier runs gave up before the other request committed",
			d.Runs, d.Of), limit))
	}
	if d.Story.Unforced {
		fmt.Fprint(w, wrapWords("  ", "    ", "this run's gate gave up before the other request committed: the interleaving was not forced", limit))
	}
	for _, t := range d.Story.Timings {
		fmt.Fprint(w, wrapWords("  ", "    ", t, limit))
	}
	return nil
}

// emphasise paints, in a story's text, the names of the anomalies it ends
// in as the story writes them ("DOUBLE CHARGE").
func emphasise(v View, text string, anomalies []check.Anomaly) string {
	if !v.Color {
		return text
	}
	for _, a := range anomalies {
		loud := strings.ToUpper(strings.ReplaceAll(string(a), "_", " "))
		text = strings.ReplaceAll(text, loud, v.paint(toneBroken, loud))
	}
	return strings.ReplaceAll(text, "INCONCLUSIVE", v.paint(toneUnsure, "INCONCLUSIVE"))
}

// WriteDemoList prints which demo shows which anomaly class (each with the
// command that shows it under what it shows, within DemoWidth), and each
// scenario's default strategy.
func WriteDemoList(w io.Writer) error {
	var b strings.Builder
	b.WriteString("ANOMALY: WHAT ITS DEMO SHOWS\n")
	for _, l := range scenarios.Lessons() {
		cmd := fmt.Sprintf("idemchaos demo %s --strategy %s", l.Scenario, l.Strategy)
		b.WriteString(wrapWords("  "+string(l.Anomaly)+": ", "    ", l.Shows, DemoWidth))
		b.WriteString("    " + cmd + "\n")
	}
	b.WriteString("CLIENT LESSON: WHAT ITS DEMO SHOWS\n")
	for _, l := range scenarios.HiddenLessons() {
		b.WriteString(wrapWords("  "+l.Name+": ", "    ", l.Shows, DemoWidth))
		b.WriteString("    idemchaos demo " + l.Name + "\n")
	}
	b.WriteString("SCENARIO: DEFAULT STRATEGY\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, sc := range scenarios.Names() {
		fmt.Fprintf(tw, "  %s\t%s\n", sc, scenarios.DemoStrategy(sc))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}
