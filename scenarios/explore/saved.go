package explore

import (
	"errors"
	"fmt"
	"slices"

	"github.com/idemchaos/idemchaos/targets/api"
)

// Rejudged is run judged again under p from its records: its execution,
// then its re-runs (Reruns), each class one of them gave besides the
// run's a Varied entry, as is each re-run that could not be run.
func Rejudged(run Run, p api.Profile, twoStores bool) Run {
	out := Judged(run.Execution, p, twoStores)
	out.Reruns, out.NotRerun = run.Reruns, run.NotRerun
	for _, ex := range run.Reruns {
		if c := Judge(ex, p, twoStores).Class(p); c != out.Class && !slices.Contains(out.Varied, c) {
			out.Varied = append(out.Varied, c)
		}
	}
	for _, why := range run.NotRerun {
		out.Varied = append(out.Varied, "not run again: "+why)
	}
	return out
}

// Rejudge is r with every order judged again from its records, under the
// profile and stores it was run with: what check DIR shows of a saved
// exploration.
func (r Result) Rejudge() Result {
	out := r
	out.Runs = make([]Run, len(r.Runs))
	for i, run := range r.Runs {
		out.Runs[i] = Rejudged(run, r.Profile, r.TwoStores)
	}
	return out
}

// Check checks a result read back from a saved document before it is
// judged again or drawn: a known case at one point, 2 or 3 requests, a
// profile to judge under, and every choice, step and attempt of an order
// one of the requests it scheduled. An error names the order at fault.
func (r Result) Check() error {
	c, err := ParseCase(r.Case)
	switch {
	case err != nil:
		return err
	case c.At == Every:
		return fmt.Errorf("case %q: a saved case strikes at one point (%s@POINT)", r.Case, r.Case)
	case r.Requests < 2 || r.Requests > MaxRequests:
		return fmt.Errorf("case %s: %d requests: want 2 to %d", r.Case, r.Requests, MaxRequests)
	case r.Preemptions < -1:
		return fmt.Errorf("case %s: %d preemptions: want -1 (unbounded) or more", r.Case, r.Preemptions)
	case r.Profile.Name == "":
		return fmt.Errorf("case %s: no profile to judge its orders under", r.Case)
	}
	for _, run := range r.Runs {
		for _, ex := range append([]Execution{run.Execution}, run.Reruns...) {
			if err := ex.check(r.Requests); err != nil {
				return fmt.Errorf("case %s, order %s: %w", r.Case, run.Order, err)
			}
		}
	}
	return nil
}

// check checks that an execution names only requests 0 to requests-1.
func (ex Execution) check(requests int) error {
	if len(ex.Order) == 0 {
		return errors.New("no choice")
	}
	if slices.ContainsFunc(ex.Order, func(r int) bool { return r < 0 || r >= requests }) {
		return fmt.Errorf("a choice of a request the exploration did not schedule (%d requests)", requests)
	}
	if slices.ContainsFunc(ex.Steps, func(s Step) bool { return s.Request < 0 || s.Request >= requests }) {
		return fmt.Errorf("a step of a request the exploration did not schedule (%d requests)", requests)
	}
	if len(ex.Attempts) > requests || len(ex.Answered) > requests {
		return fmt.Errorf("%d attempts and %d answers for %d requests", len(ex.Attempts), len(ex.Answered), requests)
	}
	return nil
}
