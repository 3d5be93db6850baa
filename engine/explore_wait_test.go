package engine

import (
	"slices"
	"testing"
	"time"

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

// TestPatienceWhenEveryOtherIsParked: a request taken to wait while every
// other was parked or answered is given the bound once more to move (it
// can only be slow or waiting on a parked request's lock); one taken to
// wait beside a request at work, or marked before the last choice, a
// fifth of it.
func TestPatienceWhenEveryOtherIsParked(t *testing.T) {
	dup, err := explore.ParseCase("duplicate")
	if err != nil {
		t.Fatal(err)
	}
	const bound = 500 * time.Millisecond
	for _, c := range []struct {
		name   string
		other  reqState
		choose bool
		want   time.Duration
	}{
		{"the other parked", held, false, bound},
		{"the other answered", done, false, bound},
		{"the other at work", running, false, bound / 5},
		{"marked before the last choice", held, true, bound / 5},
	} {
		x := newExecution(0, 2, dup, "k", "acct", "EUR", 1000)
		x.state[0], x.state[1], x.choices = c.other, running, 3
		x.mark(1, 4)
		if c.choose {
			x.choices++
		}
		if got := x.patience(bound); got != c.want {
			t.Errorf("%s: patience %s; want %s", c.name, got, c.want)
		}
	}
}
