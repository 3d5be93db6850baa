// Package explore is the scheduler of idemchaos explore: stateless model
// checking of a few requests of one idempotency key through every order of
// their steps. A request's steps are its send and each failpoint it
// reaches: held at every one, it goes on only when the scheduler releases
// it. An execution is driven from its start by a prefix of choices (which
// held request goes next), then by a default that keeps the last request
// going; the tree of choices is explored depth first, each execution a
// fresh one (the engine gives it a key and an account of its own), so no
// order's state leaks into another's. The tree is discovered as it runs: a
// request's steps are the points it reaches in that order, never assumed.
//
// A request released that neither reaches its next point nor answers
// within the engine's bound is waiting on another (a lock the other holds):
// it is not enabled until it moves, and the others are released around it.
// With more than two requests, a preemption bound (Musuvathi and Qadeer's
// context bounding) keeps the count polynomial: a preemption is a switch
// away from a request that could have gone on.
//
// The package is pure: the engine runs the executions, this package tells
// it which choices to make and records the tree.
package explore

import (
	"fmt"
	"strings"
)

// MaxRequests bounds the requests an exploration schedules.
const MaxRequests = 3

// Names are the requests' names in orders and lattices: A, B, C.
const Names = "ABC"

// Choice is one decision of an execution: which requests were held (and
// so could be released) and which was released.
type Choice struct {
	Enabled uint8 // bit i: request i is held, waiting to be released
	Chosen  int
}

// Order is the choices of one execution, written as the names of the
// requests released, in turn ("AABAB...").
type Order []int

// String writes the order as request names.
func (o Order) String() string {
	var b strings.Builder
	for _, r := range o {
		b.WriteByte(Names[r])
	}
	return b.String()
}

// MarshalText writes the order as String does.
func (o Order) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText reads an order of up to MaxRequests requests.
func (o *Order) UnmarshalText(b []byte) error {
	p, err := ParseOrder(string(b), MaxRequests)
	*o = p
	return err
}

// ParseOrder reads an order written by String, for requests requests.
func ParseOrder(s string, requests int) (Order, error) {
	if s == "" {
		return nil, fmt.Errorf("order %q: empty", s)
	}
	o := make(Order, 0, len(s))
	for i, c := range s {
		r := strings.IndexRune(Names[:requests], c)
		if r < 0 {
			return nil, fmt.Errorf("order %q: %q at %d is no request (want %s)", s, c, i+1, strings.Join(strings.Split(Names[:requests], ""), ", "))
		}
		o = append(o, r)
	}
	return o, nil
}

// Tree is the exploration of the orders of requests requests, within a
// preemption bound (negative: none). It is a list of jobs: each a prefix
// whose last choice no execution has taken yet. An execution that follows
// a job's prefix, then the default, discovers the rest of its path; every
// choice on that path it did not take becomes a job. So each order is run
// once, and jobs run side by side explore disjoint subtrees (the caller
// serialises the calls of Next and Record).
type Tree struct {
	requests    int
	preemptions int
	jobs        []Job
	runs        int
}

// Job is a prefix of choices to run, with what each choice held in the
// execution that found it: a later execution must hold the same.
type Job struct {
	Prefix Order
	held   []uint8
}

// NewTree is the exploration of requests requests (2 or 3) within
// preemptions preemptions (negative: unbounded).
func NewTree(requests, preemptions int) (*Tree, error) {
	if requests < 2 || requests > MaxRequests {
		return nil, fmt.Errorf("%d requests: want 2 to %d", requests, MaxRequests)
	}
	return &Tree{requests: requests, preemptions: preemptions, jobs: []Job{{}}}, nil
}

// Next is the next execution to run: its prefix (its choices past the
// prefix are the default's: Default), and false when no job is left; more
// may come when the executions still running are recorded.
func (t *Tree) Next() (Job, bool) {
	if len(t.jobs) == 0 {
		return Job{}, false
	}
	j := t.jobs[len(t.jobs)-1] // depth first
	t.jobs = t.jobs[:len(t.jobs)-1]
	return j, true
}

// Again puts a job back, to be run once more (an execution that did not
// follow it: a request slower than the bound to show up, on a loaded
// machine).
func (t *Tree) Again(j Job) { t.jobs = append(t.jobs, j) }

// Default is the choice past the prefix: the request released last, if it
// is held again (no preemption), else the first held one.
func Default(enabled uint8, last int) int {
	if last >= 0 && enabled&(1<<last) != 0 {
		return last
	}
	for r := range MaxRequests {
		if enabled&(1<<r) != 0 {
			return r
		}
	}
	return -1
}

// Record takes the choices of the execution that ran j, and adds a job for
// each choice past j's prefix it could have made otherwise within the
// bound. It reports an error when the execution did not follow the
// prefix, or held other requests than the execution that found the prefix
// did at the same choice: the target's orders are then not reproducible.
func (t *Tree) Record(j Job, choices []Choice) error {
	t.runs++
	if len(choices) < len(j.Prefix) {
		return fmt.Errorf("order %s: the execution ended after %d choices", j.Prefix, len(choices))
	}
	for i, r := range j.Prefix {
		c := choices[i]
		if c.Chosen != r || j.held != nil && c.Enabled != j.held[i] {
			return fmt.Errorf("order %s, choice %d: held %s and released %c; the execution that found the order held %s there",
				j.Prefix, i+1, names(c.Enabled), Names[c.Chosen], names(j.held[i]))
		}
	}
	pre := 0
	for i, c := range choices {
		last := -1
		if i > 0 {
			last = choices[i-1].Chosen
		}
		for r := range t.requests {
			if i < len(j.Prefix) || c.Enabled&(1<<r) == 0 || r == c.Chosen {
				continue
			}
			if t.preemptions >= 0 && pre+preempts(c.Enabled, last, r) > t.preemptions {
				continue
			}
			t.jobs = append(t.jobs, jobOf(choices[:i+1], r))
		}
		pre += preempts(c.Enabled, last, c.Chosen)
	}
	return nil
}

// jobOf is the job that makes choices but the last, and releases r at
// the last (which held the same).
func jobOf(choices []Choice, r int) Job {
	j := Job{Prefix: make(Order, len(choices)), held: make([]uint8, len(choices))}
	for i, c := range choices {
		j.Prefix[i], j.held[i] = c.Chosen, c.Enabled
	}
	j.Prefix[len(choices)-1] = r
	return j
}

// Runs is how many executions were recorded.
func (t *Tree) Runs() int { return t.runs }

// preempts is 1 when releasing r switches away from last while last is
// held again (a preemption), else 0.
func preempts(enabled uint8, last, r int) int {
	if last >= 0 && r != last && enabled&(1<<last) != 0 {
		return 1
	}
	return 0
}

// names writes a set of requests: "A and B", "A", "none".
func names(set uint8) string {
	var out []string
	for r := range MaxRequests {
		if set&(1<<r) != 0 {
			out = append(out, Names[r:r+1])
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, " and ")
}
