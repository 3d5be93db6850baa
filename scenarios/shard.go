package scenarios

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/idemchaos/idemchaos/targets/api"
)

// Shard is part K of N of a run (K counted from 1): N processes, on as many
// machines, each given its own K, together run exactly the work of the
// unsharded run, every part of it once. The zero Shard is the whole run.
//
// A matrix is split by cells (Select); a soak by its rounds (OwnsRound):
// every shard draws the same round seeds from the root seed and runs the
// rounds that fall to it, so a round's strategies and scenarios stay
// together, on one seed, as in the unsharded soak.
type Shard struct {
	K int `json:"k"`
	N int `json:"n"`
}

// MaxShards bounds N.
const MaxShards = 1000

// ParseShard reads "K/N", 1 <= K <= N <= MaxShards.
func ParseShard(s string) (Shard, error) {
	ks, ns, ok := strings.Cut(s, "/")
	k, kerr := digits(ks)
	n, nerr := digits(ns)
	switch {
	case !ok || kerr != nil || nerr != nil:
		return Shard{}, fmt.Errorf("%q: want K/N, shard K of N (1/3, 2/3, 3/3)", s)
	case n < 1 || n > MaxShards:
		return Shard{}, fmt.Errorf("%s: N is 1 to %d", s, MaxShards)
	case k < 1 || k > n:
		return Shard{}, fmt.Errorf("%s: K is 1 to N (%d)", s, n)
	}
	return Shard{K: k, N: n}, nil
}

// digits reads a decimal number of at most 4 digits, no sign.
func digits(s string) (int, error) {
	if s == "" || len(s) > 4 || strings.Trim(s, "0123456789") != "" {
		return 0, fmt.Errorf("not a number: %q", s)
	}
	return strconv.Atoi(s)
}

// Set reports whether s is a part of a run, not the whole of it.
func (s Shard) Set() bool { return s.N > 0 }

// String is "K/N".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// Size is how many of total items (cells, rounds) fall to the shard:
// total/N, one more for the first total%N shards.
func (s Shard) Size(total int) int {
	if !s.Set() {
		return total
	}
	n := total / s.N
	if s.K <= total%s.N {
		n++
	}
	return n
}

// Owns reports whether the item of rank r (from 0) falls to the shard:
// round robin (an exploration's cases, in the order it plans them).
func (s Shard) Owns(r int) bool { return !s.Set() || r%s.N == s.K-1 }

// OwnsRound reports whether round i of a soak (from 1) falls to the shard.
func (s Shard) OwnsRound(i int) bool { return s.Owns(i - 1) }

// Select returns the shard's share of cells, in the order given. The cells
// are ranked in an order of their own (strategy, scenario, seed, then the
// rest of what makes a cell: profile, replicas, a scenario file's
// definition), which does not depend on the order they are listed in, and
// the cell of rank r falls to shard r mod N + 1: the N shares partition
// the cells, their sizes differ by at most one, and a (strategy, scenario)
// with many seeds is spread over the shards.
func (s Shard) Select(cells []Cell) []Cell {
	if !s.Set() {
		return cells
	}
	ids := make([]cellID, len(cells))
	for i, c := range cells {
		ids[i] = identify(c, i)
	}
	slices.SortFunc(ids, compareIDs)
	mine := make([]bool, len(cells))
	for r, id := range ids {
		mine[id.at] = s.Owns(r)
	}
	var out []Cell
	for i, c := range cells {
		if mine[i] {
			out = append(out, c)
		}
	}
	return out
}

// cellID is what ranks a cell for the split and enters the digest.
type cellID struct {
	strategy, scenario string
	seed               uint64
	rest               string // profile, replicas, the scenario file's definition
	at                 int    // where the cell was listed
}

func identify(c Cell, at int) cellID {
	rest := fmt.Sprintf("profile=%s file=%s replicas=%d", c.Profile.Name, c.Profile.File, c.Replicas)
	if c.Custom != nil {
		def, _ := json.Marshal(c.Custom) // a spec always marshals
		rest += " custom=" + string(def)
	}
	return cellID{strategy: c.Strategy, scenario: c.Scenario, seed: c.Seed, rest: rest, at: at}
}

func compareIDs(a, b cellID) int {
	return cmp.Or(cmp.Compare(a.strategy, b.strategy), cmp.Compare(a.scenario, b.scenario),
		cmp.Compare(a.seed, b.seed), cmp.Compare(a.rest, b.rest))
}

// ShardRecord is what a shard's document records of the run it is a part
// of, for idemchaos merge to tell the shards of one run from those of
// another and to put the whole run back in its order.
type ShardRecord struct {
	Shard
	// Cells is the number of cells of the whole run (a matrix; a soak's
	// depend on its clock: 0; an exploration's cases).
	Cells int `json:"cells,omitempty"`
	// Digest is the SHA-256 of the whole run's work: its cells in their own
	// order (Select's), or a soak's settings (root seed, round cap,
	// strategies, scenarios, profile, replicas).
	Digest string `json:"digest"`
	// Strategies, Scenarios and Seeds are the axes of a matrix in the
	// unsharded order: strategy, then scenario, then seed (an
	// exploration's: its target, and its cases).
	Strategies []string `json:"strategies,omitempty"`
	Scenarios  []string `json:"scenarios,omitempty"`
	Seeds      []uint64 `json:"seeds,omitempty"`
	// Interrupted says the shard stopped before its share was done (a soak
	// writes its document even then): merge refuses it.
	Interrupted bool `json:"interrupted,omitempty"`
}

// MatrixShard is the record of shard s of a matrix of the cells all (the
// whole run, unsharded, in its order).
func MatrixShard(s Shard, all []Cell) *ShardRecord {
	ids := make([]cellID, len(all))
	for i, c := range all {
		ids[i] = identify(c, i)
	}
	slices.SortFunc(ids, compareIDs)
	h := sha256.New()
	fmt.Fprintln(h, "matrix")
	for _, id := range ids {
		fmt.Fprintf(h, "%q %q %d %q\n", id.strategy, id.scenario, id.seed, id.rest)
	}
	rec := &ShardRecord{Shard: s, Cells: len(all), Digest: hex.EncodeToString(h.Sum(nil))}
	seen := map[string]bool{}
	seenSeed := map[uint64]bool{}
	for _, c := range all {
		if !seen["st/"+c.Strategy] {
			seen["st/"+c.Strategy] = true
			rec.Strategies = append(rec.Strategies, c.Strategy)
		}
		if !seen["sc/"+c.Scenario] {
			seen["sc/"+c.Scenario] = true
			rec.Scenarios = append(rec.Scenarios, c.Scenario)
		}
		if !seenSeed[c.Seed] {
			seenSeed[c.Seed] = true
			rec.Seeds = append(rec.Seeds, c.Seed)
		}
	}
	return rec
}

// SoakShard is the record of shard s of a soak: every shard of the soak
// has the same settings (the round cap included; not the duration, which
// only says when each shard stops).
func SoakShard(s Shard, strategies, scens []string, root uint64, maxRounds int, profile api.Profile, replicas int) *ShardRecord {
	h := sha256.New()
	fmt.Fprintf(h, "soak\nroot=%d rounds=%d profile=%q file=%q replicas=%d\n", root, maxRounds, profile.Name, profile.File, replicas)
	fmt.Fprintf(h, "strategies=%q\nscenarios=%q\n", slices.Sorted(slices.Values(strategies)), slices.Sorted(slices.Values(scens)))
	return &ShardRecord{Shard: s, Digest: hex.EncodeToString(h.Sum(nil))}
}

// ExploreShard is the record of shard s of an exploration of target: its
// cases in the order planned (every shard's; the shard runs those Owns
// gives it) and the settings that decide its orders (requests, bound,
// seed, profile...), which every shard of one run shares.
func ExploreShard(s Shard, target string, cases []string, settings string) *ShardRecord {
	h := sha256.New()
	fmt.Fprintf(h, "explore\ntarget=%q\n%s\n", target, settings)
	for _, c := range cases {
		fmt.Fprintf(h, "%q\n", c)
	}
	return &ShardRecord{Shard: s, Cells: len(cases), Digest: hex.EncodeToString(h.Sum(nil)), Strategies: []string{target},
		Scenarios: slices.Clone(cases)}
}
