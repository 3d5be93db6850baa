package check

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
)

// keyScratch holds per-key working slices, reused from key to key so that
// checking a key allocates nothing when it is clean.
type keyScratch struct {
	// first[pos] is, for an acked attempt carrying the reference fingerprint
	// that is not the key's first such 2xx by return time, that first 2xx.
	first []*history.Attempt
	// partner[pos] is the position of a same-key, same-fingerprint attempt
	// whose server interval overlaps this one's, or -1.
	partner []int32
	order   []int32
}

func (s *keyScratch) reset(n int) {
	s.first = slices.Grow(s.first[:0], n)[:n]
	clear(s.first)
	s.partner = slices.Grow(s.partner[:0], n)[:n]
	for i := range s.partner {
		s.partner[i] = -1
	}
	s.order = s.order[:0]
}

// checkKey runs every per-key check on one key's attempts (canonical order),
// charges (by account, then seq) and Redis records (completed first). key is
// "" for attempts and charges without a key.
func (c *checker) checkKey(key string, atts []*history.Attempt, chs []*history.Charge, reds []*history.RedisRecord) {
	if key != "" {
		c.doubleCharges(key, chs)
		if c.twoStores && !c.expired[key] {
			c.storeDesync(key, chs, reds)
		}
	}
	if len(atts) == 0 {
		return
	}
	if key == "" {
		for _, a := range atts {
			if !c.noKeyless {
				c.lostAck(key, a, nil, chs)
			}
			c.missingKeyStatus(a)
		}
		return
	}
	ref := c.reference(atts, chs)
	s := &c.scratch
	s.reset(len(atts))
	c.markReplays(atts, ref, s)
	c.markOverlaps(atts, s)
	stuck := false
	for pos, a := range atts {
		c.lostAck(key, a, ref, chs)
		c.replayMismatch(key, a, s.first[pos])
		if a.Fingerprint != ref.Fingerprint {
			c.mismatchExecuted(key, a, ref)
		}
		c.keyedStatus(key, a, ref, s, pos, atts, chs)
		if a.Status >= 500 && (a.Replayed || c.isProbe(a) && a.Fault == "" && !freshFailure(atts, pos) && !c.superseded(atts, pos)) {
			c.cachedError(key, pos, atts, chs)
		}
		if !stuck && c.stuckProbe(atts, s, pos) && !c.superseded(atts, pos) { // judged on the key's last probe
			stuck = true
		}
	}
	if stuck {
		c.stuckKey(key, atts, s, reds)
	}
	if holdProbeAttempts(atts) {
		c.holdProbe(key, atts)
	} else {
		c.heldDuplicates(key, atts, chs, s)
	}
	c.declined(key, atts, chs, ref, stuck)
}

// reference returns the attempt whose fingerprint is the key's reference: the
// maker of the key's earliest charge if known, else the key's earliest
// attempt by server start (if the server logged any), else by call time.
func (c *checker) reference(atts []*history.Attempt, chs []*history.Charge) *history.Attempt {
	if len(chs) > 0 {
		earliest := slices.MinFunc(chs, bySeq)
		if earliest.AttemptID != "" {
			if a := c.attempt(earliest.AttemptID, atts); a != nil {
				return a
			}
		}
	}
	var ref *history.Attempt
	for _, a := range atts {
		if a.Server != nil && (ref == nil || a.Server.Start < ref.Server.Start) {
			ref = a
		}
	}
	if ref != nil {
		return ref
	}
	return atts[0] // sorted by call time
}

// markReplays fills s.first: among acked attempts with the reference
// fingerprint, every one but the first by return time points at that first.
func (c *checker) markReplays(atts []*history.Attempt, ref *history.Attempt, s *keyScratch) {
	s.order = s.order[:0]
	for pos, a := range atts {
		if a.Outcome == history.Acked && a.Fingerprint == ref.Fingerprint {
			s.order = append(s.order, int32(pos))
		}
	}
	if len(s.order) < 2 {
		return
	}
	slices.SortFunc(s.order, func(x, y int32) int {
		return cmp.Or(cmp.Compare(atts[x].Return, atts[y].Return), cmp.Compare(x, y))
	})
	first := atts[s.order[0]]
	for _, pos := range s.order[1:] {
		s.first[pos] = first
	}
}

// smallGroup is the size up to which a key's attempts are compared pairwise
// rather than sorted and swept.
const smallGroup = 8

// markOverlaps fills s.partner: for each attempt in flight (flight),
// another attempt with the same fingerprint in flight with it (in small
// groups the first such attempt in canonical order).
func (c *checker) markOverlaps(atts []*history.Attempt, s *keyScratch) {
	if len(atts) <= smallGroup {
		for i, a := range atts {
			for j, b := range atts {
				if i != j && c.overlap(a, b) && a.Fingerprint == b.Fingerprint {
					s.partner[i] = int32(j)
					break
				}
			}
		}
		return
	}
	s.order = s.order[:0]
	for pos, a := range atts {
		if _, _, ok := c.flight(a); ok {
			s.order = append(s.order, int32(pos))
		}
	}
	slices.SortFunc(s.order, func(x, y int32) int {
		a, b := atts[x], atts[y]
		as, ae, _ := c.flight(a)
		bs, be, _ := c.flight(b)
		return cmp.Or(
			strings.Compare(a.Fingerprint, b.Fingerprint),
			cmp.Compare(as, bs),
			cmp.Compare(ae, be),
			cmp.Compare(x, y))
	})
	for lo := 0; lo < len(s.order); {
		hi := lo + 1
		fp := atts[s.order[lo]].Fingerprint
		for hi < len(s.order) && atts[s.order[hi]].Fingerprint == fp {
			hi++
		}
		c.sweepOverlaps(atts, s.order[lo:hi], s.partner)
		lo = hi
	}
}

// flight is when a was in flight: as the server logged it when the run
// has a server log, else (a user's service: no log at all) as its client
// saw it, from its send to its answer (a late one too: Attempt.Late) or
// the client's giving up. ok is
// false for an attempt never in flight that way (not logged by a server
// that logs; never sent).
func (c *checker) flight(a *history.Attempt) (from, to time.Duration, ok bool) {
	switch {
	case a.Server != nil:
		return a.Server.Start, a.Server.End, true
	case !c.blind || a.Outcome == history.NotSent || a.Hidden:
		return 0, 0, false
	case a.Status == 0 && a.Late != nil:
		return a.Call, a.Late.At, true // answered after its client gave up
	}
	return a.Call, a.Return, true
}

// overlap reports whether a and b were in flight together (flight): on
// the server, or on a service that logs nothing, one sent before the
// other was answered.
func (c *checker) overlap(a, b *history.Attempt) bool {
	as, ae, ok1 := c.flight(a)
	bs, be, ok2 := c.flight(b)
	return ok1 && ok2 && as <= be && bs <= ae
}

// sweepOverlaps marks overlapping intervals in run (sorted by start): an
// interval overlaps an earlier one iff the latest end so far reaches its
// start, and a later one iff the next start lies within it.
func (c *checker) sweepOverlaps(atts []*history.Attempt, run []int32, partner []int32) {
	maxPos, maxEnd := int32(-1), time.Duration(0)
	for i, pos := range run {
		start, end, _ := c.flight(atts[pos])
		switch {
		case maxPos >= 0 && maxEnd >= start:
			partner[pos] = maxPos
		case i+1 < len(run):
			if next, _, _ := c.flight(atts[run[i+1]]); next <= end {
				partner[pos] = run[i+1]
			}
		}
		if maxPos < 0 || end > maxEnd {
			maxPos, maxEnd = pos, end
		}
	}
}
