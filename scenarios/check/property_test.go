package check

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// propertySeeds is how many generated worlds each property is checked on.
const propertySeeds = 500

// seededWorld returns the clean world of seed; its later random choices (the
// injections) come from a stream of its own, so that every anomaly is
// injected into the same world.
func seededWorld(seed uint64, stream uint64) *world {
	w := generate(rand.New(rand.NewPCG(seed, 1)))
	w.rng = rand.New(rand.NewPCG(seed, stream))
	return w
}

// TestPropertyCleanWorldsPass: a history and ledger correct by construction
// (each key charged at most once, acks matching charges, replays identical,
// mismatches refused, balances right, statuses per profile) give no anomaly.
func TestPropertyCleanWorldsPass(t *testing.T) {
	for seed := range uint64(propertySeeds) {
		w := seededWorld(seed, 2)
		r := Run(w.input())
		if r.Failed() || len(r.Findings) != 0 || r.Overcharged != 0 {
			t.Fatalf("seed %d: a clean world got %v, overcharged %d:\n%s%s",
				seed, r.Counts, r.Overcharged, dump(r.Findings), w.describe())
		}
		for _, name := range Anomalies() {
			if n, ok := r.Counts[name]; !ok || n != 0 {
				t.Fatalf("seed %d: Counts[%q] = %d, %v", seed, name, n, ok)
			}
		}
	}
}

// TestPropertyOneAnomalyIsFlagged: a clean world with one anomaly injected is
// reported with that anomaly, naming the key (or account) where it was
// injected, and with no other anomaly.
func TestPropertyOneAnomalyIsFlagged(t *testing.T) {
	for _, name := range Anomalies() {
		t.Run(string(name), func(t *testing.T) {
			inj, ok := injections[name]
			if !ok {
				t.Fatalf("no injection for anomaly %q", name)
			}
			seen := map[string]bool{}
			for seed := range uint64(propertySeeds) {
				w := seededWorld(seed, 3+uint64(rank(name)))
				variant, target := inj.apply(w)
				seen[variant] = true
				r := Run(w.input())
				if !flagged(r, name, target) || !onlyThis(r, name) {
					t.Fatalf("seed %d, %s injected (%s) on %q: counts %v\n%s%s",
						seed, name, variant, target, r.Counts, dump(r.Findings), w.describe())
				}
				if overcharge := name == DoubleCharge; overcharge != (r.Overcharged > 0) {
					t.Fatalf("seed %d, %s (%s): overcharged %d", seed, name, variant, r.Overcharged)
				}
				for _, f := range r.Findings {
					assertDetail(t, f)
				}
			}
			if got := slices.Sorted(maps.Keys(seen)); !slices.Equal(got, slices.Sorted(slices.Values(inj.variants))) {
				t.Errorf("variants exercised over %d seeds: %v, want %v", propertySeeds, got, inj.variants)
			}
		})
	}
}

// TestPropertyInjectionsCoverEveryAnomaly: a new anomaly needs an injection.
func TestPropertyInjectionsCoverEveryAnomaly(t *testing.T) {
	if got := slices.Sorted(maps.Keys(injections)); !slices.Equal(got, slices.Sorted(slices.Values(Anomalies()))) {
		t.Fatalf("injections for %v, anomalies %v", got, Names())
	}
}

// flagged reports whether r counts name and one of its findings names
// target (an account for balance, else a key).
func flagged(r Report, name Anomaly, target string) bool {
	if r.Counts[name] < 1 {
		return false
	}
	for _, f := range r.Findings {
		if f.Anomaly != name {
			continue
		}
		if name == Balance && f.Account == target || name != Balance && f.Key == target {
			return true
		}
	}
	return false
}

// onlyThis reports whether every anomaly but name has a zero count.
func onlyThis(r Report, name Anomaly) bool {
	for n, c := range r.Counts {
		if n != name && c != 0 {
			return false
		}
	}
	return len(r.Counts) == len(Names())
}
