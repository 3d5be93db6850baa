package browser

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
)

// widths are the screens the pages are checked on.
var widths = []int{800, 1400, 2400}

// fitsFrom is the narrowest screen on which the whole matrix shows without
// scrolling it.
const fitsFrom = 1400

// foldHeight is the screen's height: the verdict must show within it.
const foldHeight = 900

// seen is what a person sees of a page, as the probe script reads it.
type seen struct {
	ClientWidth, ScrollWidth, InnerHeight float64
	Verdict, First                        *block
	Emoji                                 string
	Columns                               []column
	Timelines                             []timeline
	ChargeColor, ExtraColor               string
	Text                                  string
}

type block struct {
	Text   string
	Top    float64
	Bottom float64
}

type column struct {
	Name               string
	Visible, Reachable bool
	PageScrollX        float64
}

type timeline struct {
	Cell, ID    string
	Lanes       []lane
	Pays        []string // the payload written on each client row ("" when none shows)
	Tags        []string // the tags of the client rows (probe, replay probe, hidden re-send)
	Probes      bool     // the line where the probes begin is drawn
	FirstCharge string   // the class of the first charge mark, by commit order
}

type lane struct {
	Name  string
	Marks []mark
}

type mark struct {
	Class   string
	Visible bool
}

// probe reads the page as a person would see it. Columns are scrolled into
// view one by one within the matrix's own scroll container, then back.
const probe = `(() => {
  const vw = document.documentElement.clientWidth, vh = window.innerHeight;
  const box = e => e.getBoundingClientRect();
  const blockOf = e => e && {Text: e.textContent.trim(), Top: box(e).top, Bottom: box(e).bottom};
  const out = {ClientWidth: vw, ScrollWidth: document.documentElement.scrollWidth, InnerHeight: vh,
    Verdict: blockOf(document.querySelector('header h1')), First: blockOf(document.querySelector('header .first')),
    Emoji: (document.body.innerText.match(/\p{Extended_Pictographic}/gu) || []).join(''),
    Columns: [], Timelines: [], Text: document.body.innerText};
  const scroller = document.querySelector('#matrix .scroll');
  for (const th of [...document.querySelectorAll('#matrix thead th')].slice(1)) {
    scroller.scrollLeft = 0;
    const frame = box(scroller), r0 = box(th);
    th.scrollIntoView({block: 'nearest', inline: 'nearest'});
    const r1 = box(th), f1 = box(scroller);
    out.Columns.push({Name: th.textContent.trim(), Visible: r0.left >= frame.left - 1 && r0.right <= frame.right + 1,
      Reachable: r1.left >= Math.max(f1.left, 0) - 1 && r1.right <= Math.min(f1.right, vw) + 1, PageScrollX: window.scrollX});
  }
  scroller.scrollLeft = 0; window.scrollTo(0, 0);
  const painted = e => { const s = getComputedStyle(e), r = box(e);
    return s.display !== 'none' && s.visibility !== 'hidden' && r.width > 0 && r.height > 0 &&
      (s.backgroundImage !== 'none' || s.backgroundColor !== 'rgba(0, 0, 0, 0)'); };
  for (const fig of document.querySelectorAll('figure.tl')) {
    const f = box(fig), lanes = [];
    for (const ln of fig.querySelectorAll('.ln')) {
      const marks = [...ln.querySelectorAll('.tr i')].map(i => { const r = box(i);
        return {Class: i.className, Visible: painted(i) && r.left >= f.left - 1 && r.right <= f.right + 1}; });
      lanes.push({Name: ln.querySelector('.lnn').firstChild.textContent.trim(), Marks: marks});
    }
    const client = fig.querySelector('.ln');
    const pays = [...client.querySelectorAll('.r')].map(r => { const p = r.querySelector('.pay');
      return p && box(p).width > 0 ? p.textContent.trim() : ''; });
    const first = [...fig.querySelectorAll('.ln .p.ch, .ln .p.ch2')][0];
    const tags = [...client.querySelectorAll('.tag')].filter(e => box(e).width > 0).map(e => e.textContent.trim());
    const line = fig.querySelector('.pl');
    out.Timelines.push({Cell: fig.closest('section.cell').id, ID: fig.id, Lanes: lanes, Pays: pays, Tags: tags,
      Probes: !!line && box(line).height > 0, FirstCharge: first ? first.className : ''});
  }
  const ch = document.querySelector('.tl .p.ch'), ch2 = document.querySelector('.tl .p.ch2');
  out.ChargeColor = ch ? getComputedStyle(ch).backgroundColor : '';
  out.ExtraColor = ch2 ? getComputedStyle(ch2).backgroundColor : '';
  return out;
})()`

// browser is one headless Chromium tab; requests lists every URL the
// pages asked for.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	requests []string
}

// step bounds each step on the browser.
const step = 30 * time.Second

func newBrowser(t *testing.T) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium(t)), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	b := &browser{ctx: ctx}
	requests := chromedp.Events(ctx, network.RequestWillBeSent) // starts the browser, subscribed from now on
	go func() {
		for ev, err := range requests {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.requests = append(b.requests, ev.Request.URL)
			b.mu.Unlock()
		}
	}()
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return b
}

// asked lists the URLs the pages asked for so far.
func (b *browser) asked() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.requests...)
}

// show loads page at width, reads what is seen and saves a screenshot of
// the top of the page as NAME-WIDTH.png.
func (b *browser) show(t *testing.T, page string, width int, name, dir string) seen {
	t.Helper()
	return look[seen](t, b, page, width, name, dir, probe)
}

// look loads page at width, reads it with the probe script and saves a
// screenshot of the top of the page as NAME-WIDTH.png.
func look[T any](t *testing.T, b *browser, page string, width int, name, dir, probe string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, step)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), foldHeight), chromedp.Navigate("file://"+page)); err != nil {
		t.Fatalf("%s at %d px: %v", name, width, err)
	}
	s, err := chromedp.Run(ctx, chromedp.Evaluate[T](probe))
	if err != nil {
		t.Fatalf("%s at %d px: read the page: %v", name, width, err)
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("%s at %d px: screenshot: %v", name, width, err)
	}
	save(t, dir, fmt.Sprintf("%s-%d.png", name, width), shot)
	return s
}

// element saves a screenshot of the first element sel matches.
func (b *browser) element(t *testing.T, sel, dir, file string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, step)
	defer cancel()
	shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("screenshot of %s: %v", sel, err)
	}
	save(t, dir, file, shot)
}

func save(t *testing.T, dir, file string, data []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writePage renders doc into dir/name.html.
func writePage(t *testing.T, doc results.Document, dir, name string) string {
	t.Helper()
	var b strings.Builder
	if err := reports.WriteHTML(&b, doc); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".html")
	save(t, dir, name+".html", []byte(b.String()))
	return path
}

// checkLayout is what every page must give a person at every width.
func checkLayout(t *testing.T, s seen, width, columns int) {
	t.Helper()
	if s.ScrollWidth > s.ClientWidth {
		t.Errorf("the page overflows: %v px wide on a %v px screen", s.ScrollWidth, s.ClientWidth)
	}
	if s.Verdict == nil || s.Verdict.Top < 0 || s.Verdict.Bottom > s.InnerHeight {
		t.Errorf("the verdict is not above the fold: %+v", s.Verdict)
	}
	if s.First != nil && s.First.Top > s.InnerHeight {
		t.Errorf("what to do first starts below the fold (%v px of %v)", s.First.Top, s.InnerHeight)
	}
	if s.Emoji != "" {
		t.Errorf("emoji on the page (no colour-emoji font on CI images): %q", s.Emoji)
	}
	if len(s.Columns) != columns {
		t.Errorf("%d scenario columns; want %d", len(s.Columns), columns)
	}
	for _, c := range s.Columns {
		switch {
		case !c.Reachable || c.PageScrollX != 0:
			t.Errorf("column %s cannot be brought on screen by the matrix's scroll (page scrolled by %v px)", c.Name, c.PageScrollX)
		case width >= fitsFrom && !c.Visible:
			t.Errorf("column %s is off screen at %d px: the matrix must fit from %d px", c.Name, width, fitsFrom)
		}
	}
}

// money is how a payload reads on a client row.
var money = regexp.MustCompile(`^\d+\.\d\d [A-Z]{3}\b`)

// checkTimelines: every try's payload written out, the first charge not
// drawn as an extra one.
func checkTimelines(t *testing.T, s seen) {
	t.Helper()
	for _, tl := range s.Timelines {
		for i, p := range tl.Pays {
			if !money.MatchString(p) {
				t.Errorf("%s: client row %d shows no payload (%q)", tl.ID, i+1, p)
			}
		}
		if tl.FirstCharge != "" && !strings.HasSuffix(tl.FirstCharge, " ch") {
			t.Errorf("%s: the first charge is drawn as %q, not as the legitimate one", tl.ID, tl.FirstCharge)
		}
	}
	if s.ChargeColor == "" || s.ExtraColor == "" || s.ChargeColor == s.ExtraColor {
		t.Errorf("the legitimate charge (%q) and an extra one (%q) must differ", s.ChargeColor, s.ExtraColor)
	}
}
