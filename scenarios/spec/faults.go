package spec

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// faultKind says what a kind of fault takes.
type faultKind struct {
	inTarget bool // fired inside the target at a failpoint
	duration bool // needs a duration
}

// kindOf says what a kind takes: the client-side drop, or one of the
// actions a target fires at a failpoint.
func kindOf(kind string) (faultKind, bool) {
	if kind == KindDropResponse {
		return faultKind{}, true
	}
	for _, a := range api.Actions() {
		if string(a) == kind {
			return faultKind{inTarget: true, duration: a.TakesDuration()}, true
		}
	}
	return faultKind{}, false
}

// Kinds lists the fault kinds of a scenario file: the client-side drop,
// then every in-target action.
func Kinds() []string {
	out := []string{KindDropResponse}
	for _, a := range api.Actions() {
		out = append(out, string(a))
	}
	return out
}

// slot is where a try holds a fault: its client-side route, or its one
// in-target injection.
type slot struct {
	client bool
	try    int
}

func (s slot) String() string {
	if s.client {
		return fmt.Sprintf("the client's link of try %d", s.try)
	}
	return fmt.Sprintf("the in-target injections of try %d", s.try)
}

// slots are the slots the fault takes on the tries it hits.
func (f Fault) slots() []slot {
	var out []slot
	if f.Kind == KindDropResponse || f.DropResponse {
		out = append(out, slot{client: true, try: f.Try})
	}
	if k, _ := kindOf(f.Kind); k.inTarget {
		out = append(out, slot{try: f.Try})
	}
	return out
}

// inject is the fault as a planned injection; the zero Injection for a
// client-side one.
func (f Fault) inject() api.Injection {
	if k, _ := kindOf(f.Kind); !k.inTarget {
		return api.Injection{}
	}
	return api.Injection{Action: api.Action(f.Kind), Arg: f.Duration.D(), Point: api.Point(f.At)}
}

func (s Spec) validateFaults() error {
	if len(s.Faults) > maxFaults {
		return fieldErr("faults", "%d faults; at most %d", len(s.Faults), maxFaults)
	}
	used := map[slot]float64{}
	for i, f := range s.Faults {
		path := fmt.Sprintf("faults[%d]", i)
		if err := f.validate(path, s.Retries.MaxTries); err != nil {
			return err
		}
		for _, sl := range f.slots() {
			if used[sl] += f.Share; used[sl] > 1+1e-9 {
				return fieldErr(path+".share", "the shares of the faults on %s add up to %g; at most 1", sl, used[sl])
			}
		}
	}
	return nil
}

func (f Fault) validate(path string, tries int) error {
	kind, ok := kindOf(f.Kind)
	if !ok {
		return fieldErr(path+".kind", "%q is not one of %s", clip(f.Kind, 40), strings.Join(Kinds(), ", "))
	}
	if err := f.validateWhere(path, kind); err != nil {
		return err
	}
	if err := shareIn(path+".share", f.Share, false); err != nil {
		return err
	}
	if f.Try < 1 || f.Try > tries {
		return fieldErr(path+".try", "%d is not in 1..%d (retries.max_tries)", f.Try, tries)
	}
	if err := f.inject().Validate(); kind.inTarget && err != nil {
		return fieldErr(path, "%v", err)
	}
	return nil
}

// validateWhere checks at, duration and drop_response against the kind.
func (f Fault) validateWhere(path string, kind faultKind) error {
	switch {
	case !kind.inTarget && f.At != "":
		return fieldErr(path+".at", "%s happens on the client's link and takes no failpoint", f.Kind)
	case !kind.inTarget && f.DropResponse:
		return fieldErr(path+".drop_response", "%s drops the response already", f.Kind)
	case kind.inTarget && f.At == "":
		return fieldErr(path+".at", "missing; %s fires at one of %s", f.Kind, pointNames())
	case kind.duration:
		if err := durIn(path+".duration", f.Duration, maxInjection, false); err != nil {
			return fieldErr(path+".duration", "%s needs a duration in (0s, %s], got %s", f.Kind, fmtDur(maxInjection), f.Duration)
		}
	case f.Duration != 0:
		return fieldErr(path+".duration", "%s takes no duration", f.Kind)
	}
	if _, err := api.ParsePoint(f.At); kind.inTarget && err != nil {
		return fieldErr(path+".at", "%q is not one of %s", clip(f.At, 40), pointNames())
	}
	return nil
}

func pointNames() string {
	var names []string
	for _, p := range api.Points() {
		names = append(names, string(p))
	}
	return strings.Join(names, ", ")
}

// placeFaults puts each fault, in list order, on round(share × n) of the n
// requests that have its try, picked from the seed among those whose slots
// for that try are still free.
func (s Spec) placeFaults(plan *workload.Plan, rng *rand.Rand) {
	for _, f := range s.Faults {
		eligible := 0
		var free []int
		for i, op := range plan.Ops {
			if op.MaxTries < f.Try {
				continue
			}
			eligible++
			if f.fits(op.Tries[f.Try-1]) {
				free = append(free, i)
			}
		}
		n := min(countOf(f.Share, eligible), len(free))
		for _, j := range rng.Perm(len(free))[:n] {
			f.apply(&plan.Ops[free[j]].Tries[f.Try-1])
		}
	}
}

// fits reports whether the try has room for the fault.
func (f Fault) fits(t workload.Try) bool {
	for _, sl := range f.slots() {
		if sl.client && t.Fault != "" || !sl.client && !t.Inject.IsZero() {
			return false
		}
	}
	return true
}

func (f Fault) apply(t *workload.Try) {
	if f.Kind == KindDropResponse || f.DropResponse {
		t.Fault = workload.DropResponse
	}
	if in := f.inject(); !in.IsZero() {
		t.Inject = in
	}
}
