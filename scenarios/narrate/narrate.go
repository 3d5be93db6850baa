// Package narrate tells one key of a finished cell as a story for a room:
// numbered lines in domain words ("client A sends ...", "replica 0 reads key
// 3f2a1b4c… from Redis: absent (request A)", "Postgres commits charge #1 for
// request B", "balance of acct-2 ...: DOUBLE CHARGE") and a Mermaid sequence
// diagram of the same steps.
//
// Everything is derived from what the run observed: the attempts as client
// and server saw them, the failpoints each request passed (the trace), the
// ledger, the Redis records and the checker's findings. Nothing assumes the
// outcome. The order is canonical, so that the same seed tells the same story
// on every run: the steps of each request in their own order, and between
// requests only the order the data proves (retries, plan order, requests
// that did not overlap, the gate, a replay after its commit, a 409 while
// another request held the key), with every remaining choice made by a fixed
// rule (a request goes on while it can; a held request waits; the earlier
// client first). Clients are lettered in the order they reached the target's
// first failpoint, charges numbered in commit order, and runs of identical
// plain answers (the 409s of a retry loop) told once, so that timing never
// changes a word. Durations, attempt and charge ids go to a separate timings
// section.
//
// The package does no I/O.
//
// It is an internal part of idemchaos, not a stable API: it may change
// between releases.
package narrate

import (
	"fmt"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// Narrative is the told story of one key of a cell.
type Narrative struct {
	// Title names the cell and the key: "forced-race with redis-getset, seed 1, key aef7c1aa…".
	Title string
	// Lines are the numbered narration lines, identical on every run of the
	// same cell and seed.
	Lines []string
	// Anomalies are the checker's anomalies about this key, in the checker's
	// order; empty: the story ends well.
	Anomalies []check.Anomaly
	// Mermaid is the story as a Mermaid sequenceDiagram.
	Mermaid string
	// Timings holds what varies from run to run: durations, attempt ids,
	// ledger ids, counts of retries, the whole run's verdict.
	Timings []string
	// Unforced reports that the scenario's gate gave up waiting while
	// another request of the key was still on its way: this run did not
	// force the interleaving the scenario is built to force, and its story
	// differs from a forced run's.
	Unforced bool
}

// Text is the numbered lines, one per line.
func (n Narrative) Text() string {
	return strings.Join(n.Lines, "\n") + "\n"
}

// Story tells the key of the cell's first finding (in plan order), or its
// first key when nothing was found.
func Story(rec scenarios.Record, res scenarios.Result) Narrative {
	s := newStory(rec, res)
	n := Narrative{Title: s.title()}
	if len(s.units) == 0 {
		n.Lines = []string{"1. nothing to tell: no request of the plan reached the history"}
		n.Mermaid = "sequenceDiagram\n    Note over PG: no requests\n"
		return n
	}
	s.link()
	r := newRenderer(s)
	for _, st := range s.schedule() {
		r.step(st)
	}
	r.ending()
	n.Lines, n.Mermaid = r.numbered(), r.diagram()
	n.Anomalies = s.anomalies
	n.Timings = s.timings()
	n.Unforced = s.unforced()
	return n
}

func (s *story) title() string {
	c := s.rec.Cell
	t := fmt.Sprintf("%s with %s, seed %d", c.Scenario, c.Strategy, c.Seed)
	switch {
	case s.key != "":
		t += ", key " + short(s.key)
	case len(s.ops) > 0:
		t += ", a request without a key"
	}
	return t
}
