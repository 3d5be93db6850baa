package scenarios_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/api"
)

func TestParseShard(t *testing.T) {
	for _, ok := range []struct {
		in   string
		k, n int
	}{{"1/1", 1, 1}, {"2/3", 2, 3}, {"3/3", 3, 3}, {"1000/1000", 1000, 1000}, {"07/10", 7, 10}} {
		s, err := scenarios.ParseShard(ok.in)
		if err != nil || s.K != ok.k || s.N != ok.n || !s.Set() {
			t.Errorf("%q: %+v, %v", ok.in, s, err)
		}
	}
	for _, bad := range []string{"", "3", "/", "1/", "/3", "0/3", "4/3", "1/0", "0/0", "1/1001", "-1/3", "+1/3",
		" 1/3", "1/3 ", "1/3/3", "a/b", "1.0/3", "99999/99999", "1/\n3", "１/3"} {
		s, err := scenarios.ParseShard(bad)
		if err == nil {
			t.Errorf("%q: accepted as %+v", bad, s)
			continue
		}
		if strings.ContainsAny(err.Error(), "\r\n") {
			t.Errorf("%q: error is not one line: %q", bad, err)
		}
	}
	if s, _ := scenarios.ParseShard("2/3"); s.String() != "2/3" {
		t.Errorf("String: %s", s)
	}
}

// randomCells is a matrix-like list: some strategies x scenarios x seeds,
// in a random order, sometimes with a scenario file and another profile.
func randomCells(r *rand.Rand) []scenarios.Cell {
	sts := []string{"none", "memory", "redis-getset", "pg-tx", "redis-pg-guard"}[:1+r.IntN(5)]
	scs := scenarios.Names()[:1+r.IntN(len(scenarios.Names()))]
	first, n := r.Uint64N(1000), 1+r.IntN(6)
	var cells []scenarios.Cell
	for _, st := range sts {
		for _, sc := range scs {
			for i := range n {
				cells = append(cells, scenarios.Cell{Strategy: st, Scenario: sc, Seed: first + uint64(i), Profile: api.Stripe})
			}
		}
	}
	r.Shuffle(len(cells), func(i, j int) { cells[i], cells[j] = cells[j], cells[i] })
	return cells
}

func id(c scenarios.Cell) string { return fmt.Sprintf("%s/%s/%d", c.Strategy, c.Scenario, c.Seed) }

// TestShardsPartitionTheCells: for many cell lists and shard counts, the N
// shares together are the unsharded list, no cell twice, their sizes differ
// by at most one (and are Size's), each share keeps the listed order, and a
// share does not depend on the order the cells are listed in.
func TestShardsPartitionTheCells(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 3))
	for iter := range 300 {
		cells := randomCells(r)
		n := 1 + r.IntN(min(2*len(cells), 40))
		if iter%100 == 0 {
			n = scenarios.MaxShards
		}
		listed := map[string]int{}
		for i, c := range cells {
			listed[id(c)] = i
		}
		shuffled := slices.Clone(cells)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		seen := map[string]int{}
		lo, hi := len(cells), 0
		for k := 1; k <= n; k++ {
			s := scenarios.Shard{K: k, N: n}
			share := s.Select(cells)
			lo, hi = min(lo, len(share)), max(hi, len(share))
			if len(share) != s.Size(len(cells)) {
				t.Fatalf("%d cells, shard %s: %d cells, Size says %d", len(cells), s, len(share), s.Size(len(cells)))
			}
			pos := -1
			for _, c := range share {
				seen[id(c)]++
				at := listed[id(c)]
				if at < pos {
					t.Fatalf("shard %s does not keep the listed order", s)
				}
				pos = at
			}
			other := s.Select(shuffled)
			if !sameSet(share, other) {
				t.Fatalf("%d cells, shard %s: another listing order selects other cells", len(cells), s)
			}
		}
		if hi-lo > 1 {
			t.Fatalf("%d cells in %d shards: sizes %d to %d", len(cells), n, lo, hi)
		}
		if len(seen) != len(cells) {
			t.Fatalf("%d cells in %d shards: the shards run %d of them", len(cells), n, len(seen))
		}
		for c, times := range seen {
			if times != 1 {
				t.Fatalf("%d cells in %d shards: %s runs %d times", len(cells), n, c, times)
			}
		}
	}
}

func sameSet(a, b []scenarios.Cell) bool {
	ids := func(cs []scenarios.Cell) []string {
		out := make([]string, len(cs))
		for i, c := range cs {
			out[i] = id(c)
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(ids(a), ids(b))
}

// TestShardsSpreadSeeds: the seeds of one strategy and scenario go round
// robin, so a slow scenario is not one shard's alone.
func TestShardsSpreadSeeds(t *testing.T) {
	var cells []scenarios.Cell
	for seed := range uint64(6) {
		cells = append(cells, scenarios.Cell{Strategy: "pg-tx", Scenario: "retry-storm", Seed: seed + 1})
	}
	for k := 1; k <= 3; k++ {
		var got []uint64
		for _, c := range (scenarios.Shard{K: k, N: 3}).Select(cells) {
			got = append(got, c.Seed)
		}
		if want := []uint64{uint64(k), uint64(k + 3)}; !slices.Equal(got, want) {
			t.Errorf("shard %d/3: seeds %v, want %v", k, got, want)
		}
	}
}

// TestSoakRoundsPartition: every round index falls to exactly one shard,
// round robin, and the shards' round counts are Size's.
func TestSoakRoundsPartition(t *testing.T) {
	for n := 1; n <= 30; n++ {
		for rounds := range 70 {
			count := make([]int, n+1)
			for i := 1; i <= rounds; i++ {
				owners := 0
				for k := 1; k <= n; k++ {
					if (scenarios.Shard{K: k, N: n}).OwnsRound(i) {
						owners++
						count[k]++
					}
				}
				if owners != 1 {
					t.Fatalf("%d shards: round %d falls to %d", n, i, owners)
				}
			}
			for k := 1; k <= n; k++ {
				if s := (scenarios.Shard{K: k, N: n}); count[k] != s.Size(rounds) {
					t.Fatalf("%d rounds, shard %s runs %d; Size says %d", rounds, s, count[k], s.Size(rounds))
				}
			}
		}
	}
	if !(scenarios.Shard{}).OwnsRound(5) || len((scenarios.Shard{}).Select(make([]scenarios.Cell, 3))) != 3 {
		t.Fatal("the zero shard is not the whole run")
	}
}

// TestShardRecords: the digest names the work, not its listing order, and
// tells apart other cells, another profile, another soak.
func TestShardRecords(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cells := randomCells(r)
	shuffled := slices.Clone(cells)
	r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	a := scenarios.MatrixShard(scenarios.Shard{K: 1, N: 2}, cells)
	b := scenarios.MatrixShard(scenarios.Shard{K: 2, N: 2}, shuffled)
	if a.Digest != b.Digest || a.Cells != len(cells) || len(a.Digest) != 64 {
		t.Fatalf("records %+v and %+v", a, b)
	}
	fewer := scenarios.MatrixShard(scenarios.Shard{K: 1, N: 2}, cells[1:])
	other := slices.Clone(cells)
	other[0].Profile = api.IETF
	if fewer.Digest == a.Digest || scenarios.MatrixShard(a.Shard, other).Digest == a.Digest {
		t.Fatal("other cells, same digest")
	}
	soak := func(root uint64, rounds int, sts ...string) string {
		return scenarios.SoakShard(scenarios.Shard{K: 1, N: 4}, sts, []string{"missing-key", "retry-storm"}, root, rounds, api.IETF, 1).Digest
	}
	if soak(7, 8, "pg-tx", "none") != soak(7, 8, "none", "pg-tx") {
		t.Fatal("the soak digest depends on the listing order")
	}
	if soak(7, 8, "pg-tx") == soak(8, 8, "pg-tx") || soak(7, 8, "pg-tx") == soak(7, 9, "pg-tx") || soak(7, 8, "pg-tx") == soak(7, 8, "none") {
		t.Fatal("other soaks, same digest")
	}
	m := scenarios.MatrixShard(scenarios.Shard{K: 1, N: 1}, []scenarios.Cell{
		{Strategy: "b", Scenario: "y", Seed: 2}, {Strategy: "b", Scenario: "y", Seed: 3}, {Strategy: "b", Scenario: "x", Seed: 2},
		{Strategy: "a", Scenario: "y", Seed: 2}})
	if !slices.Equal(m.Strategies, []string{"b", "a"}) || !slices.Equal(m.Scenarios, []string{"y", "x"}) || !slices.Equal(m.Seeds, []uint64{2, 3}) {
		t.Fatalf("axes %v %v %v", m.Strategies, m.Scenarios, m.Seeds)
	}
}

// FuzzParseShard: no input panics; a refusal is one line; what is accepted
// is in bounds and reads back from its String.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/3", "3/3", "0/3", "4/3", "1/1000", "1/1001", "", "/", "2/", "a/b", "01/02", "1/3/3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := scenarios.ParseShard(in)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("%q: error is not one line: %q", in, err)
			}
			return
		}
		if s.K < 1 || s.K > s.N || s.N > scenarios.MaxShards {
			t.Fatalf("%q: accepted out of bounds: %+v", in, s)
		}
		if again, err := scenarios.ParseShard(s.String()); err != nil || again != s {
			t.Fatalf("%q: %s reads back as %+v, %v", in, s, again, err)
		}
	})
}
