package reports

import (
	"fmt"
	"github.com/idemchaos/idemchaos/results"
	"math"
	"strconv"
	"strings"
)

// The percentile chart of one strategy, in SVG user units: latency on a log
// scale shared by every strategy of the page (y), percentile columns (x).
const (
	chartW, chartH       = 360.0, 236.0
	plotLeft, plotRight  = 46.0, 350.0
	plotTop, plotBottom  = 20.0, 192.0
	minLabelGap          = 20.0 // an end of the scale closer than this to a grid line goes unlabelled
	columnLabelY         = 208.0
	mixY, mixH           = 220.0, 10.0 // the bar of the answers' split
	minChartMS           = 0.001       // the histograms' floor: 1 µs
	fineTicksUpToDecades = 2.5         // 1-2-5 ticks on a narrow scale, decades on a wide one
)

// chartFrame carries the fixed geometry into the template.
type chartFrame struct {
	ViewBox, Left, Right, TickX, ColumnY, MixY, MixH, MixLabelY string
}

func frame() chartFrame {
	return chartFrame{ViewBox: fmt.Sprintf("0 0 %s %s", coord(chartW), coord(chartH)), Left: coord(plotLeft),
		Right: coord(plotRight), TickX: coord(plotLeft - 4), ColumnY: coord(columnLabelY), MixY: coord(mixY), MixH: coord(mixH),
		MixLabelY: coord(mixY + mixH - 1)}
}

// chartColumns label the x axis.
var chartColumns = []string{"p50", "p90", "p99", "p99.9", "max"}

// logScale maps milliseconds to a y coordinate.
type logScale struct{ lo, hi float64 }

// sharedScale spans every percentile of every kind of answer of every
// strategy, rounded out to 1-2-5 steps; ok is false with nothing to chart.
func sharedScale(rs []results.BenchResult) (s logScale, ok bool) {
	lo, hi := math.Inf(1), 0.0
	for _, r := range rs {
		for _, l := range r.Latency {
			if l.Count == 0 {
				continue
			}
			for _, v := range []float64{l.P50, l.P90, l.P99, l.P999, l.Max} {
				v = max(v, minChartMS)
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if hi == 0 {
		return s, false
	}
	s = logScale{lo: niceBelow(lo), hi: niceAbove(hi)}
	if s.hi <= s.lo {
		s.hi = niceAbove(s.lo * 1.5)
	}
	return s, true
}

func (s logScale) y(ms float64) float64 {
	f := math.Log10(max(ms, s.lo)/s.lo) / math.Log10(s.hi/s.lo)
	return plotBottom - min(f, 1)*(plotBottom-plotTop)
}

// niceBelow is the largest 1, 2 or 5 times a power of ten not above v.
func niceBelow(v float64) float64 {
	base := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{5, 2, 1} {
		if m*base <= v*(1+1e-9) {
			return m * base
		}
	}
	return base
}

// niceAbove is the smallest 1, 2 or 5 times a power of ten not below v.
func niceAbove(v float64) float64 {
	base := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5} {
		if m*base >= v*(1-1e-9) {
			return m * base
		}
	}
	return 10 * base
}

// chartTick is one horizontal grid line and its label.
type chartTick struct {
	Y, Label string
	v        float64
}

// ticks are the grid lines: 1-2-5 steps on a narrow scale, powers of ten
// (and both ends) on a wide one.
func (s logScale) ticks() []chartTick {
	steps := []float64{1, 2, 5}
	if math.Log10(s.hi/s.lo) > fineTicksUpToDecades {
		steps = []float64{1}
	}
	var out []chartTick
	for e := math.Floor(math.Log10(s.lo)); e <= math.Ceil(math.Log10(s.hi)); e++ {
		for _, m := range steps {
			if v := m * math.Pow(10, e); v > s.lo*(1+1e-9) && v < s.hi*(1-1e-9) {
				out = append(out, s.tick(v, e))
			}
		}
	}
	lo, hi := s.tick(s.lo, math.Floor(math.Log10(s.lo))), s.tick(s.hi, math.Floor(math.Log10(s.hi)))
	if len(out) > 0 && s.y(s.lo)-s.y(out[0].v) < minLabelGap {
		lo.Label = ""
	}
	if len(out) > 0 && s.y(out[len(out)-1].v)-s.y(s.hi) < minLabelGap {
		hi.Label = ""
	}
	return append(append([]chartTick{lo}, out...), hi)
}

func (s logScale) tick(v, exp float64) chartTick {
	return chartTick{Y: coord(s.y(v)), Label: strconv.FormatFloat(v, 'f', int(max(0, -exp)), 64), v: v}
}

// chartColumn is one percentile on the x axis.
type chartColumn struct{ X, Label string }

func columnX(i int) float64 {
	pad := 22.0
	return plotLeft + pad + float64(i)*(plotRight-plotLeft-2*pad)/float64(len(chartColumns)-1)
}

func columns() []chartColumn {
	out := make([]chartColumn, len(chartColumns))
	for i, l := range chartColumns {
		out[i] = chartColumn{X: coord(columnX(i)), Label: l}
	}
	return out
}

// chartSeries is one kind of answer's percentile curve.
type chartSeries struct {
	Class, Points string
	Dots          []chartDot
}

type chartDot struct{ X, Y, Title string }

// seriesOf draws the kinds of answer that came back, "all" first.
func seriesOf(s logScale, r results.BenchResult) []chartSeries {
	var out []chartSeries
	for _, k := range benchKinds {
		l := r.LatencyOf(k)
		if l.Count == 0 {
			continue
		}
		c := chartSeries{Class: "k-" + k}
		var points []string
		for i, v := range []float64{l.P50, l.P90, l.P99, l.P999, l.Max} {
			x, y := coord(columnX(i)), coord(s.y(v))
			points = append(points, x+","+y)
			c.Dots = append(c.Dots, chartDot{X: x, Y: y, Title: fmt.Sprintf("%s, %s answers (%d): %s %s ms",
				r.Strategy, kindLabel(k), l.Count, chartColumns[i], benchMS(v))})
		}
		c.Points = strings.Join(points, " ")
		out = append(out, c)
	}
	return out
}

// mixSegment is one kind's share of the answers, as a bar segment.
type mixSegment struct{ X, W, Class, Title string }

// answerMix splits the answers into first, replay and 409 along the bar.
func answerMix(r results.BenchResult) []mixSegment {
	total := int64(0)
	for _, k := range benchKinds[1:] {
		total += r.LatencyOf(k).Count
	}
	var out []mixSegment
	x := plotLeft
	for _, k := range benchKinds[1:] {
		n := r.LatencyOf(k).Count
		if n == 0 || total == 0 {
			continue
		}
		w := float64(n) / float64(total) * (plotRight - plotLeft)
		out = append(out, mixSegment{X: coord(x), W: coord(w), Class: "k-" + k,
			Title: fmt.Sprintf("%s: %d of %d answers (%.1f %%)", kindLabel(k), n, total, 100*float64(n)/float64(total))})
		x += w
	}
	return out
}

func coord(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
