package browser

import (
	"fmt"
	"strings"
	"testing"
)

// want is a fault mark a scenario's timelines draw, on a lane whose name
// starts with Lane; Every: on each of them (the plan faults every
// operation's first try), else on one at least.
type want struct {
	Lane, Class string
	Every       bool
}

// faultMarks are the faults of each fault scenario, where they happen.
var faultMarks = map[string][]want{
	"dropped-response":         {{"network", "f-drop", false}},
	"replica-fanout":           {{"network", "f-drop", false}},
	"db-fault-mid-request":     {{"Postgres", "f-cut", true}},
	"redis-fault-after-commit": {{"network", "f-drop", true}, {"Redis", "f-cut", true}},
	"slow-charge":              {{"Postgres", "f-slow", false}},
	"client-timeout-retry":     {{"replica", "f-slow", false}},
	"forced-race":              {{"replica", "f-hold", false}},
	"retry-storm":              {{"network", "f-drop", false}},
}

// shots are the timelines saved as screenshots at 1400 px, by scenario:
// the cell whose first timeline is saved.
var shots = map[string]string{
	"db-fault-mid-request":     "redis-sticky/db-fault-mid-request",
	"forced-race":              "redis-getset/forced-race",
	"redis-fault-after-commit": "redis-sticky/redis-fault-after-commit",
	"slow-charge":              "none/slow-charge",
}

func TestReportsInChromium(t *testing.T) {
	dir := artifacts(t)
	b := newBrowser(t)
	matrix := writePage(t, runMatrix(t, matrixStrategies), dir, "matrix")
	for _, w := range widths {
		t.Run(fmt.Sprintf("matrix at %d px", w), func(t *testing.T) {
			s := b.show(t, matrix, w, "matrix", dir)
			checkLayout(t, s, w, len(singleServer()))
			checkTimelines(t, s)
			checkFaults(t, s)
			b.element(t, "#matrix", dir, fmt.Sprintf("matrix-table-%d.png", w))
			if w != 1400 {
				return
			}
			for sc, cell := range shots {
				b.element(t, `[id="`+cell+`"] figure.tl`, dir, "timeline-"+sc+"-1400.png")
			}
		})
	}
	service := writePage(t, runService(t), dir, "service")
	for _, w := range widths {
		t.Run(fmt.Sprintf("service at %d px", w), func(t *testing.T) {
			s := b.show(t, service, w, "service", dir)
			checkLayout(t, s, w, len(serviceScenarios))
			checkTimelines(t, s)
			if !strings.Contains(s.Verdict.Text, "Your service broke") {
				t.Errorf("verdict %q; want the service broke", s.Verdict.Text)
			}
		})
	}
	for _, u := range b.asked() {
		if u != "file://"+matrix && u != "file://"+service {
			t.Errorf("the page asked for %s: a report must need no network", u)
		}
	}
	t.Logf("screenshots and pages in %s", dir)
}

// checkFaults: every fault scenario's timelines draw its faults on the lane
// where they happened, and the probes of the scenarios that probe.
func checkFaults(t *testing.T, s seen) {
	t.Helper()
	byScenario := map[string][]timeline{}
	for _, tl := range s.Timelines {
		parts := strings.Split(tl.Cell, "/")
		byScenario[parts[len(parts)-1]] = append(byScenario[parts[len(parts)-1]], tl)
	}
	for sc, wants := range faultMarks {
		tls := byScenario[sc]
		if len(tls) == 0 {
			t.Errorf("%s: no timeline drawn", sc)
			continue
		}
		for _, w := range wants {
			n := 0
			for _, tl := range tls {
				if tl.draws(w) {
					n++
				}
			}
			if n == 0 || w.Every && n < len(tls) {
				t.Errorf("%s: %d of %d timelines draw %s on the %s lane", sc, n, len(tls), w.Class, w.Lane)
			}
		}
	}
	probed := false
	for _, tl := range byScenario["db-fault-mid-request"] {
		probed = probed || tl.Probes && tl.tagged("probe")
	}
	if !probed {
		t.Error("db-fault-mid-request: no timeline marks where its probes begin and which tries are probes")
	}
	replayed := false
	for _, tl := range byScenario["dropped-response"] {
		replayed = replayed || tl.tagged("replay probe")
	}
	if !replayed {
		t.Error("dropped-response: no try is marked as a replay probe")
	}
}

func (tl timeline) draws(w want) bool {
	for _, l := range tl.Lanes {
		if !strings.HasPrefix(l.Name, w.Lane) {
			continue
		}
		for _, m := range l.Marks {
			if m.Visible && strings.Contains(" "+m.Class+" ", " "+w.Class+" ") {
				return true
			}
		}
	}
	return false
}

func (tl timeline) tagged(tag string) bool {
	for _, t := range tl.Tags {
		if t == tag {
			return true
		}
	}
	return false
}
