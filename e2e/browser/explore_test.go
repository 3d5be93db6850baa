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

// exploreSeen is what a person sees of an exploration's page, every
// <details> opened, as exploreProbe reads it.
type exploreSeen struct {
	ClientWidth, ScrollWidth, InnerHeight float64
	Verdict                               *block
	Emoji                                 string
	// Lattice is the drawing's box on screen; nil when none is drawn.
	Lattice *struct{ Left, Right, Width float64 }
	// States counts the lattice's states by class (n-safe, n-lost, ...).
	States map[string]int
	// Clipped are the lattice's labels that stick out of it, Overlaps the
	// labels drawn over each other or the key drawn over the lattice.
	Clipped, Overlaps []string
	// Scrolled are the scroll boxes whose content is wider than they are.
	Scrolled []string
	Legend   []string
	Text     string
}

// exploreProbe opens every <details>, then reads the page.
const exploreProbe = `(() => {
  for (const d of document.querySelectorAll('details')) d.open = true;
  const vw = document.documentElement.clientWidth, vh = window.innerHeight;
  const box = e => e.getBoundingClientRect();
  const meets = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const h = document.querySelector('header h1');
  const out = {ClientWidth: vw, ScrollWidth: document.documentElement.scrollWidth, InnerHeight: vh,
    Verdict: h && {Text: h.textContent.trim(), Top: box(h).top, Bottom: box(h).bottom},
    Emoji: (document.body.innerText.match(/\p{Extended_Pictographic}/gu) || []).join(''),
    Lattice: null, States: {}, Clipped: [], Overlaps: [], Scrolled: [],
    Legend: [...document.querySelectorAll('li.class')].map(li => li.textContent.replace(/\s+/g, ' ').trim()),
    Text: document.body.innerText};
  const svg = document.querySelector('svg.grid');
  if (svg) {
    const s = box(svg);
    out.Lattice = {Left: s.left, Right: s.right, Width: s.width};
    const texts = [...svg.querySelectorAll('text')];
    for (const t of texts) { const r = box(t);
      if (r.left < s.left - .5 || r.right > s.right + .5 || r.top < s.top - .5 || r.bottom > s.bottom + .5) out.Clipped.push(t.textContent); }
    const flat = texts.filter(t => !t.hasAttribute('transform'));
    for (let i = 0; i < flat.length; i++) for (let j = i + 1; j < flat.length; j++)
      if (meets(box(flat[i]), box(flat[j]))) out.Overlaps.push(flat[i].textContent + ' / ' + flat[j].textContent);
    const key = document.querySelector('.key');
    if (key && meets(box(key), s)) out.Overlaps.push('the key / the lattice');
    for (const c of svg.querySelectorAll('circle.node, circle.n-none')) {
      const k = c.getAttribute('class').replace('node', '').trim(); out.States[k] = (out.States[k] || 0) + 1; }
  }
  for (const sc of document.querySelectorAll('.scroll'))
    if (sc.scrollWidth > sc.clientWidth + 1) out.Scrolled.push(sc.parentElement.id || sc.className);
  return out;
})()`

// TestExplorePageInChromium: the pages of real explorations, redis-getset's
// race and pg-tx, at three widths: nothing overflows the page, the
// lattice is on screen whole with no label clipped or drawn over another,
// its states as the lattice has them (redis-getset's lost region, pg-tx
// all safe), the legend names every outcome, the verdict above the fold.
func TestExplorePageInChromium(t *testing.T) {
	dir := artifacts(t)
	b := newBrowser(t)
	pages := map[string]string{}
	results := map[string]explore.Result{}
	for _, strategy := range []string{"redis-getset", "pg-tx"} {
		res := runExplore(t, strategy)
		results[strategy] = res
		pages[strategy] = writeExplorePage(t, res, dir)
	}
	for _, strategy := range []string{"redis-getset", "pg-tx"} {
		res := results[strategy]
		l := explore.LatticeOf(res.Runs)
		for _, w := range widths {
			t.Run(fmt.Sprintf("%s at %d px", strategy, w), func(t *testing.T) {
				s := look[exploreSeen](t, b, pages[strategy], w, "explore-"+strategy, dir, exploreProbe)
				checkExploreLayout(t, s)
				states := 0
				for _, n := range s.States {
					states += n
				}
				if want := (len(l.A) + 1) * (len(l.B) + 1); states != want {
					t.Errorf("%d states drawn; want %d", states, want)
				}
				lost := s.States["n-lost"]
				if strategy == "redis-getset" && (lost == 0 || !strings.Contains(s.Text, "Where the race is lost.")) {
					t.Errorf("redis-getset: %d lost states, and the window %v said", lost, strings.Contains(s.Text, "Where the race is lost."))
				}
				if strategy == "pg-tx" && (lost > 0 || s.States["n-open"] > 0 || !strings.Contains(s.Text, "Every state is safe")) {
					t.Errorf("pg-tx: states %v; want every one safe", s.States)
				}
				for class, n := range res.Classes() {
					if !legendSays(s.Legend, class, n) {
						t.Errorf("the legend %q does not say %d %s", s.Legend, n, class)
					}
				}
				b.element(t, "#lattice", dir, fmt.Sprintf("explore-%s-lattice-%d.png", strategy, w))
			})
		}
	}
	for _, u := range b.asked() {
		if u != "file://"+pages["redis-getset"] && u != "file://"+pages["pg-tx"] {
			t.Errorf("the page asked for %s: a report must need no network", u)
		}
	}
	t.Logf("screenshots and pages in %s", dir)
}

// legendSays reports whether an entry of the legend gives n orders of class.
func legendSays(legend []string, class string, n int) bool {
	for _, l := range legend {
		if strings.HasPrefix(l, fmt.Sprintf("%d %s ", n, class)) {
			return true
		}
	}
	return false
}

// checkExploreLayout is what an exploration's page must give a person at
// every width.
func checkExploreLayout(t *testing.T, s exploreSeen) {
	t.Helper()
	if s.ScrollWidth > s.ClientWidth {
		t.Errorf("the page overflows: %v px wide on a %v px screen", s.ScrollWidth, s.ClientWidth)
	}
	if s.Verdict == nil || s.Verdict.Top < 0 || s.Verdict.Bottom > s.InnerHeight {
		t.Errorf("the verdict is not above the fold: %+v", s.Verdict)
	}
	if s.Emoji != "" {
		t.Errorf("emoji on the page (no colour-emoji font on CI images): %q", s.Emoji)
	}
	if s.Lattice == nil || s.Lattice.Left < 0 || s.Lattice.Right > s.ClientWidth || s.Lattice.Width < 300 {
		t.Errorf("the lattice is not on screen whole: %+v on %v px", s.Lattice, s.ClientWidth)
	}
	if len(s.Clipped) > 0 {
		t.Errorf("labels stick out of the lattice: %q", s.Clipped)
	}
	if len(s.Overlaps) > 0 {
		t.Errorf("drawn over each other: %q", s.Overlaps)
	}
	if len(s.Scrolled) > 0 && s.ClientWidth >= fitsFrom {
		t.Errorf("at %v px, tables need their scroll: %q", s.ClientWidth, s.Scrolled)
	}
}

// runExplore explores strategy on the real stores: every order of two
// duplicates, two at a time.
func runExplore(t *testing.T, strategy string) explore.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	dup, err := explore.ParseCase("duplicate")
	if err != nil {
		t.Fatal(err)
	}
	all, err := builtins(ctx, t, 1)[0].Explore(ctx, strategy, engine.ExploreSpec{Cases: []explore.Case{dup}, Requests: 2, Preemptions: -1, Workers: 2,
		Profile: api.IETF, Seed: 1, Recheck: 3})
	if err != nil {
		t.Fatal(err)
	}
	res := all[0]
	t.Logf("%s (in %s, bound %s)", res.Sentence(), res.Took, res.Bound)
	if l := explore.LatticeOf(res.Runs); l == nil || len(res.Runs) < 2 {
		t.Fatalf("%s: %s: no lattice to draw", strategy, res.Sentence())
	}
	return res
}

// writeExplorePage renders res into dir/explore-TARGET.html.
func writeExplorePage(t *testing.T, res explore.Result, dir string) string {
	t.Helper()
	var sb strings.Builder
	if err := reports.WriteExploreHTML(&sb, []explore.Result{res}, "--strategy "+res.Target); err != nil {
		t.Fatal(err)
	}
	name := "explore-" + res.Target + ".html"
	save(t, dir, name, []byte(sb.String()))
	return filepath.Join(dir, name)
}
