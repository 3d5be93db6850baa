package check

import (
	"cmp"
	"slices"
	"strings"

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

// markOverlaps fills s.partner: for each attempt the server logged, another
// attempt with the same fingerprint whose [Start, End] overlaps its own (in
// small groups the first such attempt in canonical order).
func (c *checker) markOverlaps(atts []*history.Attempt, s *keyScratch) {
	if len(atts) <= smallGroup {
		for i, a := range atts {
			for j, b := range atts {
				if i != j && overlap(a, b) && a.Fingerprint == b.Fingerprint {
					s.partner[i] = int32(j)
					break
				}
			}
		}
		return
	}
	s.order = s.order[:0]
	for pos, a := range atts {
		if a.Server != nil {
			s.order = append(s.order, int32(pos))
		}
	}
	slices.SortFunc(s.order, func(x, y int32) int {
		a, b := atts[x], atts[y]
		return cmp.Or(
			strings.Compare(a.Fingerprint, b.Fingerprint),
			cmp.Compare(a.Server.Start, b.Server.Start),
			cmp.Compare(a.Server.End, b.Server.End),
			cmp.Compare(x, y))
	})
	for lo := 0; lo < len(s.order); {
		hi := lo + 1
		fp := atts[s.order[lo]].Fingerprint
		for hi < len(s.order) && atts[s.order[hi]].Fingerprint == fp {
			hi++
		}
		sweepOverlaps(atts, s.order[lo:hi], s.partner)
		lo = hi
	}
}

// overlap reports whether the server saw a and b at the same time.
func overlap(a, b *history.Attempt) bool {
	return a.Server != nil && b.Server != nil && a.Server.Start <= b.Server.End && b.Server.Start <= a.Server.End
}

// sweepOverlaps marks overlapping server intervals in run (sorted by start):
// an interval overlaps an earlier one iff the latest end so far reaches its
// start, and a later one iff the next start lies within it.
func sweepOverlaps(atts []*history.Attempt, run []int32, partner []int32) {
	maxPos := int32(-1)
	for i, pos := range run {
		v := atts[pos].Server
		switch {
		case maxPos >= 0 && atts[maxPos].Server.End >= v.Start:
			partner[pos] = maxPos
		case i+1 < len(run) && atts[run[i+1]].Server.Start <= v.End:
			partner[pos] = run[i+1]
		}
		if maxPos < 0 || v.End > atts[maxPos].Server.End {
			maxPos = pos
		}
	}
}
