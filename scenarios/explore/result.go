package explore

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
)

// Run is one order, judged.
type Run struct {
	Execution
	Outcome Outcome `json:"outcome"`
	Class   string  `json:"class"`
	// Varied lists the classes re-runs of the order gave besides Class
	// (the determinism check), then each re-run that could not be run: an
	// order that varies is reported, never dropped. It is judged from
	// Reruns and NotRerun (Rejudged).
	Varied []string `json:"varied,omitempty"`
	// Reruns are the determinism check's executions of the order (a
	// replay's repeats after its first), kept so that the run is judged
	// again from its records alone.
	Reruns []Execution `json:"reruns,omitempty"`
	// NotRerun says why each re-run of the order that could not be run
	// did not.
	NotRerun []string `json:"not_rerun,omitempty"`
}

// Result is what an exploration ran and proved.
type Result struct {
	Target      string `json:"target"` // the strategy, or the service's name
	Case        string `json:"case"`
	Requests    int    `json:"requests"`
	Preemptions int    `json:"preemptions"` // -1: unbounded
	// Bound is how long a released request may take to reach its next
	// point before it is taken to wait on another, and how it was set.
	Bound    time.Duration `json:"bound_ns"`
	BoundHow string        `json:"bound_how"`
	Runs     []Run         `json:"runs"`
	// Rechecked counts the orders run again by the determinism check.
	Rechecked int `json:"rechecked"`
	// Errors are the orders that could not be run, with why.
	Errors []string      `json:"errors,omitempty"`
	Took   time.Duration `json:"took_ns"`
	// Profile and TwoStores are what the orders were judged under: a
	// saved exploration is judged again from its records alone (Rejudge).
	Profile   api.Profile `json:"profile"`
	TwoStores bool        `json:"two_stores,omitempty"`
	// Args are the flags that name the target on explore's command line
	// ("--strategy pg-tx", a service's flags), for the replay line.
	Args string `json:"args,omitempty"`
}

// Holding counts the orders that held.
func (r Result) Holding() int {
	n := 0
	for _, run := range r.Runs {
		if run.Outcome.Holds() && len(run.Varied) == 0 {
			n++
		}
	}
	return n
}

// Classes counts the orders by outcome class.
func (r Result) Classes() map[string]int {
	out := map[string]int{}
	for _, run := range r.Runs {
		out[run.Class]++
	}
	return out
}

// Failing is the orders that broke an invariant every time they ran,
// shortest first (fewest steps, then by name).
func (r Result) Failing() []Run {
	var out []Run
	for _, run := range r.Runs {
		if !run.Outcome.Holds() && len(run.Varied) == 0 {
			out = append(out, run)
		}
	}
	slices.SortFunc(out, func(a, b Run) int {
		return cmp.Or(cmp.Compare(len(a.Steps), len(b.Steps)), strings.Compare(a.Order.String(), b.Order.String()))
	})
	return out
}

// Varying is the orders whose outcome varied across re-runs.
func (r Result) Varying() []Run {
	var out []Run
	for _, run := range r.Runs {
		if len(run.Varied) > 0 {
			out = append(out, run)
		}
	}
	return out
}

// Bounds says what bounded the exploration: the preemptions, for three
// requests.
func (r Result) Bounds() string {
	if r.Preemptions < 0 {
		return "every order"
	}
	return fmt.Sprintf("every order with at most %s", plural(r.Preemptions, "preemption"))
}

// Sentence says what the exploration proved, in one line: "pg-tx,
// duplicate: 924 of 924 orders hold", or "redis-getset, duplicate:
// double_charge in 210 of 924 orders".
func (r Result) Sentence() string {
	n := len(r.Runs)
	head := fmt.Sprintf("%s, %s (%d requests, %s)", r.Target, r.Case, r.Requests, r.Bounds())
	if len(r.Errors) > 0 {
		head += fmt.Sprintf(", %s not run", plural(len(r.Errors), "order"))
	}
	failing := r.Failing()
	varying := len(r.Varying())
	switch {
	case len(failing) == 0 && varying == 0:
		return fmt.Sprintf("%s: %d of %d orders hold", head, n, n)
	case len(failing) == 0:
		return fmt.Sprintf("%s: %d of %d orders hold, %s varying across re-runs", head, r.Holding(), n, plural(varying, "order"))
	}
	counts := map[string]int{}
	for _, run := range failing {
		counts[run.Class]++
	}
	var parts []string
	for _, c := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s in %d", c, counts[c]))
	}
	s := fmt.Sprintf("%s: %s of %d orders", head, strings.Join(parts, ", "), n)
	if varying > 0 {
		s += fmt.Sprintf(" (%s varying across re-runs)", plural(varying, "order"))
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Judged is the run of ex, judged under p.
func Judged(ex Execution, p api.Profile, twoStores bool) Run {
	o := Judge(ex, p, twoStores)
	return Run{Execution: ex, Outcome: o, Class: o.Class(p)}
}

// Columns writes an execution as two (or three) columns, a request's steps
// each, one step a line in the order they were released:
//
//	A                  B
//	send
//	                   send
//	after-check
func (ex Execution) Columns(requests int) string {
	const width = 22
	var b strings.Builder
	for r := range requests {
		fmt.Fprintf(&b, "%-*s", width, Names[r:r+1])
	}
	b.WriteString("\n")
	for _, s := range ex.Steps {
		name := s.From
		if s.Waited {
			name += " (waits)"
		}
		fmt.Fprintf(&b, "%s%s\n", strings.Repeat(" ", width*s.Request), name)
	}
	return strings.TrimRight(b.String(), "\n")
}

// Summary says what the results of one target prove together: "pg-tx:
// every order of every case holds (duplicate, mismatch, lost-reply at 3
// points, pg-cut at 5 points): 480 orders", or which cases broke.
func Summary(res []Result) string {
	if len(res) == 0 {
		return ""
	}
	orders, held := 0, 0
	var broke []string
	points := map[string]int{}
	var kinds []string
	for _, r := range res {
		orders += len(r.Runs)
		held += r.Holding()
		if len(r.Failing()) > 0 || len(r.Varying()) > 0 || len(r.Errors) > 0 {
			broke = append(broke, r.Case)
		}
		kind, _, at := strings.Cut(r.Case, "@")
		if !slices.Contains(kinds, kind) {
			kinds = append(kinds, kind)
		}
		if at {
			points[kind]++
		}
	}
	var parts []string
	for _, k := range kinds {
		if n := points[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s at %s", k, plural(n, "point")))
		} else {
			parts = append(parts, k)
		}
	}
	what := strings.Join(parts, ", ")
	if len(broke) == 0 {
		return fmt.Sprintf("%s: every one of %d orders holds (%s)", res[0].Target, orders, what)
	}
	return fmt.Sprintf("%s: %d of %d orders hold (%s); broken in %s", res[0].Target, held, orders, what, strings.Join(broke, ", "))
}

// Shown is what the results show, by kind of case: the anomalies of the
// orders that failed or varied, over every point of the kind, sorted by
// name; a kind whose orders all held has none.
func Shown(res []Result) map[string][]string {
	out := map[string][]string{}
	for _, r := range res {
		kind, _, _ := strings.Cut(r.Case, "@")
		for _, run := range r.Runs {
			for _, a := range run.Outcome.Anomalies {
				if !slices.Contains(out[kind], string(a)) {
					out[kind] = append(out[kind], string(a))
				}
			}
		}
		slices.Sort(out[kind])
	}
	return out
}
