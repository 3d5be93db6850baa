package results

import (
	"net/http"
	"sort"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/idemchaos/idemchaos/sim/history"
)

// Latency is the distribution of attempt latencies (client send to answer)
// for one strategy and one kind of answer, in milliseconds.
type Latency struct {
	Strategy string  `json:"strategy"`
	Kind     string  `json:"kind"` // all, first (a fresh 2xx), replay (a replayed 2xx), conflict (409)
	Count    int64   `json:"count"`
	P50      float64 `json:"p50_ms"`
	P90      float64 `json:"p90_ms"`
	P99      float64 `json:"p99_ms"`
	P999     float64 `json:"p999_ms"`
	Max      float64 `json:"max_ms"`
}

// Latency kinds.
const (
	KindAll      = "all"
	KindFirst    = "first"
	KindReplay   = "replay"
	KindConflict = "conflict"
)

// Histogram bounds: 1µs to 1 minute, 3 significant figures.
const (
	histMin = 1
	histMax = int64(time.Minute / time.Microsecond)
)

// Latencies accumulates attempt latencies per strategy and kind in HDR
// histograms. The zero value is not usable: call NewLatencies.
type Latencies struct {
	h map[[2]string]*hdrhistogram.Histogram
}

// NewLatencies returns an empty accumulator.
func NewLatencies() *Latencies { return &Latencies{h: map[[2]string]*hdrhistogram.Histogram{}} }

// Add records the attempts of one run of strategy: those that got an answer.
func (l *Latencies) Add(strategy string, attempts []history.Attempt) {
	for _, a := range attempts {
		if a.Status == 0 || a.Hidden {
			continue
		}
		us := max((a.Return - a.Call).Microseconds(), histMin)
		l.record(strategy, KindAll, us)
		if kind := kindOf(a); kind != "" {
			l.record(strategy, kind, us)
		}
	}
}

func kindOf(a history.Attempt) string {
	switch {
	case a.Status == http.StatusConflict:
		return KindConflict
	case a.Status/100 == 2 && a.Replayed:
		return KindReplay
	case a.Status/100 == 2:
		return KindFirst
	}
	return ""
}

func (l *Latencies) record(strategy, kind string, us int64) {
	k := [2]string{strategy, kind}
	h := l.h[k]
	if h == nil {
		h = hdrhistogram.New(histMin, histMax, 3)
		l.h[k] = h
	}
	_ = h.RecordValue(min(us, histMax)) // values are clamped into range
}

// Summary lists the percentiles per strategy and kind, sorted.
func (l *Latencies) Summary() []Latency {
	out := make([]Latency, 0, len(l.h))
	for k, h := range l.h {
		ms := func(q float64) float64 { return float64(h.ValueAtQuantile(q)) / 1000 }
		out = append(out, Latency{Strategy: k[0], Kind: k[1], Count: h.TotalCount(),
			P50: ms(50), P90: ms(90), P99: ms(99), P999: ms(99.9), Max: float64(h.Max()) / 1000})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Strategy != out[j].Strategy {
			return out[i].Strategy < out[j].Strategy
		}
		return kindRank(out[i].Kind) < kindRank(out[j].Kind)
	})
	return out
}

func kindRank(k string) int {
	return map[string]int{KindAll: 0, KindFirst: 1, KindReplay: 2, KindConflict: 3}[k]
}
