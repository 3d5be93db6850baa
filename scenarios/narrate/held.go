package narrate

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
)

// holding is one original request of the story and the duplicates the
// checker found held until it finished.
type holding struct {
	original *unit
	held     []*unit
	charge   string // the charge the first of them got
	status   int    // the status it got
	waits    []time.Duration
}

// holdings groups the story's held_duplicate findings by original, in
// story order; a finding whose requests are not in the story is left out.
func (s *story) holdings() []*holding {
	var out []*holding
	for _, f := range s.findings {
		if f.Anomaly != check.HeldDuplicate || len(f.Attempts) < 2 {
			continue
		}
		b, o := s.attemptByID(f.Attempts[0]), s.attemptByID(f.Attempts[1])
		ub, uo := s.unitOf(f.Attempts[0]), s.unitOf(f.Attempts[1])
		if b == nil || o == nil || ub == nil || uo == nil {
			continue
		}
		var h *holding
		for _, x := range out {
			if x.original == uo {
				h = x
			}
		}
		if h == nil {
			h = &holding{original: uo, status: answered(*b), charge: b.ChargeID}
			if b.Server != nil {
				h.charge = b.Server.ChargeID
			}
			out = append(out, h)
		}
		h.held = append(h.held, ub)
		h.waits = append(h.waits, waited(*b, *o))
	}
	for _, h := range out {
		order := make([]int, len(h.held))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(i, j int) bool { return h.held[order[i]].rank < h.held[order[j]].rank })
		held, waits := make([]*unit, len(order)), make([]time.Duration, len(order))
		for i, k := range order {
			held[i], waits[i] = h.held[k], h.waits[k]
		}
		h.held, h.waits = held, waits
	}
	return out
}

// linkHeld: a held duplicate is told sent before its original's commit (or
// answer), wherever the clocks put it; its replay already comes after that
// commit (linkCharges).
func (s *story) linkHeld() {
	s.heldBy = map[*unit]*unit{}
	for _, h := range s.holdings() {
		for _, x := range h.held {
			s.heldBy[x] = h.original
			srv := x.first().Server
			if srv == nil {
				continue
			}
			if end := h.original.releaseAfter(nil, srv.Start); end != nil {
				end.after(x.steps[0])
			}
		}
	}
}

// attemptByID finds an attempt of the story.
func (s *story) attemptByID(id string) *history.Attempt {
	for _, u := range s.units {
		for i := range u.tries {
			if u.tries[i].ID == id {
				return &u.tries[i]
			}
		}
	}
	return nil
}

// answered is the status the server gave a, else the one the client got.
func answered(a history.Attempt) int {
	if a.Server != nil {
		return a.Server.Status
	}
	return a.Status
}

// waited is how long held attempt b waited for original o: from b's start
// to o's end, on the server when both have a server view, else on the client.
func waited(b, o history.Attempt) time.Duration {
	if b.Server != nil && o.Server != nil {
		return o.Server.End - b.Server.Start
	}
	return o.Return - b.Call
}

// held tells the held duplicates: "request B waited for request A to
// finish instead of getting 409 Conflict at once, then got A's answer:
// 201 Created (charge #1)".
func (s *story) held() string {
	var parts []string
	for _, h := range s.holdings() {
		names := make([]string, len(h.held))
		for i, u := range h.held {
			names[i] = u.request()
		}
		who := names[0]
		if len(names) > 1 {
			who = "requests " + joinAnd(strings.TrimPrefix(names[0], "request "), names[1:]...)
		}
		parts = append(parts, fmt.Sprintf("%s waited for %s to finish instead of getting %s at once, then got %s's answer: %s (%s)",
			who, h.original.request(), s.profile.InFlightSet().Names(status), h.original.short(), status(h.status), s.charge(h.charge)))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("%d findings", s.count(check.HeldDuplicate))
	}
	return strings.Join(parts, "; ")
}

// joinAnd joins "B", "request C", "request D" as "B, C and D".
func joinAnd(first string, rest ...string) string {
	items := []string{first}
	for _, r := range rest {
		items = append(items, strings.TrimPrefix(r, "request "))
	}
	if len(items) == 1 {
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// heldTimings says how long each held duplicate waited.
func (s *story) heldTimings() []string {
	var out []string
	for _, h := range s.holdings() {
		for i, u := range h.held {
			out = append(out, fmt.Sprintf("%s waited %s for %s", u.request(), ms(h.waits[i]), h.original.request()))
		}
	}
	return out
}
