package browser

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios/explore"
	"github.com/idemchaos/idemchaos/targets/api"
)

// casesSeen is what a person sees of a page of several cases.
type casesSeen struct {
	ClientWidth, ScrollWidth, InnerHeight float64
	Verdict                               *block
	// Links are the header's lines, one per case: the text and whether
	// the section it links to exists.
	Links []struct {
		Text   string
		Target bool
	}
	// Cases are the sections' headings; Lattices each lattice's box.
	Cases    []string
	Lattices []struct{ Left, Right, Width float64 }
}

const casesProbe = `(() => {
  const vw = document.documentElement.clientWidth, box = e => e.getBoundingClientRect();
  const h = document.querySelector('header h1');
  return {ClientWidth: vw, ScrollWidth: document.documentElement.scrollWidth, InnerHeight: window.innerHeight,
    Verdict: h && {Text: h.textContent.trim(), Top: box(h).top, Bottom: box(h).bottom},
    Links: [...document.querySelectorAll('ul.cases a')].map(a => ({Text: a.textContent.trim(),
      Target: !!document.getElementById(a.getAttribute('href').slice(1))})),
    Cases: [...document.querySelectorAll('section.case > h2')].map(e => e.textContent.trim()),
    Lattices: [...document.querySelectorAll('svg.grid')].map(s => { const r = box(s); return {Left: r.left, Right: r.right, Width: r.width}; })};
})()`

// TestExploreCasesPageInChromium: a real exploration of two cases of
// redis-getset on one page, at three widths: the summary above the fold,
// a line per case linking to its section, a section and a whole lattice
// on screen per case, nothing overflowing the page.
func TestExploreCasesPageInChromium(t *testing.T) {
	dir := artifacts(t)
	b := newBrowser(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	var cases []explore.Case
	for _, name := range []string{"duplicate", "lost-reply@after-commit"} {
		c, err := explore.ParseCase(name)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	res, err := builtins(ctx, t, 1)[0].Explore(ctx, "redis-getset", engine.ExploreSpec{Cases: cases, Requests: 2, Preemptions: -1,
		Workers: 2, Profile: api.IETF, Seed: 1, Recheck: 3})
	if err != nil || len(res) != 2 {
		t.Fatalf("explore: %d results, %v", len(res), err)
	}
	var sb strings.Builder
	if err := reports.WriteExploreHTML(&sb, res, "--strategy redis-getset"); err != nil {
		t.Fatal(err)
	}
	save(t, dir, "explore-cases.html", []byte(sb.String()))
	page := filepath.Join(dir, "explore-cases.html")
	for _, w := range widths {
		t.Run(fmt.Sprintf("at %d px", w), func(t *testing.T) {
			s := look[casesSeen](t, b, page, w, "explore-cases", dir, casesProbe)
			if s.ScrollWidth > s.ClientWidth {
				t.Errorf("the page overflows: %v px wide on a %v px screen", s.ScrollWidth, s.ClientWidth)
			}
			if s.Verdict == nil || s.Verdict.Top < 0 || s.Verdict.Bottom > s.InnerHeight || s.Verdict.Text != explore.Summary(res) {
				t.Errorf("the summary is not the heading above the fold: %+v", s.Verdict)
			}
			if len(s.Links) != 2 || len(s.Cases) != 2 || len(s.Lattices) != 2 {
				t.Fatalf("%d links, %d sections, %d lattices; want one each per case", len(s.Links), len(s.Cases), len(s.Lattices))
			}
			for i, r := range res {
				if l := s.Links[i]; l.Text != r.Sentence() || !l.Target || s.Cases[i] != r.Sentence() {
					t.Errorf("case %d: link %+v, section %q; want %q, linked", i+1, l, s.Cases[i], r.Sentence())
				}
				if l := s.Lattices[i]; l.Left < 0 || l.Right > s.ClientWidth || l.Width < 300 {
					t.Errorf("case %d: the lattice is not on screen whole: %+v on %v px", i+1, l, s.ClientWidth)
				}
			}
		})
	}
}
