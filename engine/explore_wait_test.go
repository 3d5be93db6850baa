package engine

import (
	"slices"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios/explore"
)

// TestSlowIsNotWaiting: a request taken to wait that moves before any
// other request is released, while every other is parked or answered,
// was slow (a loaded machine), not waiting on another: its step is
// unmarked. One that moves only after another choice, or while another
// request was at work, keeps its mark.
func TestSlowIsNotWaiting(t *testing.T) {
	dup, err := explore.ParseCase("duplicate")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		other  reqState
		choose bool // another choice is made before it moves
		slow   bool
	}{
		{"the other answered", done, false, true},
		{"the other parked", held, false, true},
		{"the other parked, then released", held, true, false},
		{"the other at work", running, false, false},
	} {
		x := newExecution(0, 2, dup, "k", "acct", "EUR", 1000)
		x.state[0], x.state[1], x.choices = c.other, running, 3
		x.mark(1, 4)
		if c.choose {
			x.choices++
		}
		x.handle(event{r: 1, hold: "after-commit", release: make(chan struct{})})
		if got := slices.Contains(x.slow, 4); got != c.slow {
			t.Errorf("%s: unmarked %v; want %v", c.name, got, c.slow)
		}
	}
}
