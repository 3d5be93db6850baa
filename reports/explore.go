package reports

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/explore"
	"github.com/idemchaos/idemchaos/sim/history"
)

// ExploreRepro is the command line that replays one order of an
// exploration, given the flags that name the target ("--strategy
// redis-getset").
func ExploreRepro(target string, res explore.Result, order explore.Order) string {
	s := fmt.Sprintf("idemchaos explore %s --case %s --order %s", target, res.Case, order)
	if res.Requests != 2 {
		s += fmt.Sprintf(" --requests %d", res.Requests)
	}
	return s
}

// WriteExplorations writes the cases of an exploration for a terminal,
// each as WriteExplore does with the flags it saved (explore.Result.Args),
// then, for more than one, what they prove together.
func WriteExplorations(w io.Writer, res []explore.Result, v View) error {
	for i, r := range res {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := WriteExplore(w, r, r.Args, v); err != nil {
			return err
		}
	}
	if len(res) > 1 {
		_, err := fmt.Fprintf(w, "\n%s\n", explore.Summary(res))
		return err
	}
	return nil
}

// WriteExplore writes an exploration for a terminal: what it proved in a
// sentence, the bound, the shortest failing order as columns with the line
// that replays it, the orders that varied, and the lattice of two
// requests.
func WriteExplore(w io.Writer, res explore.Result, target string, v View) error {
	tone := tonePass
	switch {
	case len(res.Failing()) > 0:
		tone = toneBroken
	case len(res.Varying()) > 0 || len(res.Errors) > 0:
		tone = toneUnsure
	}
	fmt.Fprintln(w, v.paint(tone, res.Sentence()))
	fmt.Fprint(w, Wrap("  ", "    ", fmt.Sprintf("%s run in %s, %d again to check they repeat; a request waits on another after %s (%s)",
		plural(len(res.Runs), "order"), scenarios.ShortDuration(res.Took), res.Rechecked, scenarios.ShortDuration(res.Bound), res.BoundHow), exploreWidth(v)))
	for _, e := range res.Errors {
		fmt.Fprintf(w, "  not run: %s\n", e)
	}
	if failing := res.Failing(); len(failing) > 0 {
		s := failing[0]
		fmt.Fprintf(w, "\nthe shortest failing order, %s (%s):\n", s.Order, s.Class)
		for _, line := range strings.Split(s.Columns(res.Requests), "\n") {
			fmt.Fprintln(w, "  "+strings.TrimRight(line, " "))
		}
		if p := s.Probe; p != nil {
			fmt.Fprintf(w, "  then a probe of the key, after the claim timeout: %s\n", probeAnswer(*p))
		}
		if s.Outcome.Detail != "" {
			fmt.Fprint(w, Wrap("  ", "    ", s.Outcome.Detail, exploreWidth(v)))
		}
		fmt.Fprintf(w, "  replay: %s\n", ExploreRepro(target, res, s.Order))
	}
	for _, r := range res.Varying() {
		fmt.Fprintf(w, "  varies: %s gave %s, then %s\n", r.Order, r.Class, strings.Join(r.Varied, ", "))
	}
	if l := explore.LatticeOf(res.Runs); l != nil && len(res.Runs) > 1 {
		fmt.Fprintln(w)
		writeLattice(w, l, v)
		writeWindow(w, windowOf(l, l.Edges(res.Runs)), v)
	}
	return nil
}

// writeLattice draws the lattice as a grid: a column per step of A done, a
// row per step of B, each node marked by the orders through it.
func writeLattice(w io.Writer, l *explore.Lattice, v View) {
	fmt.Fprintln(w, "every order is a path from the top left, a step of A across or of B down; each state marked by the orders through it:")
	fmt.Fprintln(w, "  .  every one holds    X  every one fails (the race is lost from here)    ~  some hold, some fail")
	var head strings.Builder
	head.WriteString("       ")
	for i := range l.A {
		fmt.Fprintf(&head, " A%-2d", i)
	}
	fmt.Fprintf(&head, " A%d", len(l.A))
	fmt.Fprintln(w, strings.TrimRight(head.String(), " "))
	for j, row := range l.Nodes {
		var b strings.Builder
		fmt.Fprintf(&b, "   B%-2d ", j)
		for _, n := range row {
			fmt.Fprintf(&b, "  %s ", v.paint(nodeTone(n), nodeMark(n)))
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	fmt.Fprint(w, Wrap("  ", "    ", "A's steps: "+stepList(l.A), exploreWidth(v)))
	fmt.Fprint(w, Wrap("  ", "    ", "B's steps: "+stepList(l.B), exploreWidth(v)))
	fmt.Fprintln(w, "  (A2 is the state after A's first two steps; a request that was answered early has no more steps)")
}

// writeWindow says by which steps the failing orders enter the lost
// region (the X), if any do.
func writeWindow(w io.Writer, window []windowEntry, v View) {
	if len(window) == 0 {
		return
	}
	fmt.Fprintln(w, "the failing orders enter the X, where the race is lost, by:")
	for _, e := range window {
		fmt.Fprint(w, Wrap("  ", "    ", e.String(), exploreWidth(v)))
	}
}

// nodeMark is a node's mark.
func nodeMark(n explore.Node) string {
	switch {
	case n.Held == 0 && n.Failed == 0:
		return " "
	case n.Safe():
		return "."
	case n.Lost():
		return "X"
	}
	return "~"
}

func nodeTone(n explore.Node) tone {
	switch {
	case n.Lost():
		return toneBroken
	case n.Safe():
		return tonePass
	}
	return plain
}

// stepList numbers a request's steps: "1 send, 2 after-check, ...".
func stepList(steps []string) string {
	parts := make([]string, len(steps))
	for i, s := range steps {
		parts[i] = fmt.Sprintf("%d %s", i+1, s)
	}
	return strings.Join(parts, ", ")
}

// exploreWidth is the width an exploration's text wraps at.
func exploreWidth(v View) int {
	if v.Width > 0 {
		return v.Width
	}
	return DefaultWidth
}

// probeAnswer says what a probe got: its status and charge, or why none.
func probeAnswer(a history.Attempt) string {
	switch {
	case a.Status == 0:
		return "no answer (" + a.Err + ")"
	case a.ChargeID != "":
		return fmt.Sprintf("%d, %s", a.Status, a.ChargeID)
	}
	return strconv.Itoa(a.Status)
}
