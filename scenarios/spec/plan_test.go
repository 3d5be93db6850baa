package spec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/sim/workload"
)

func mustSpec(t *testing.T, yaml string) Spec {
	t.Helper()
	s, err := Parse([]byte(yaml), reserved)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func planOf(t *testing.T, s Spec, seed uint64, replicas int) workload.Plan {
	t.Helper()
	p := s.Plan(workload.Seeded(seed, "plan/"+s.Name), replicas)
	if err := p.Validate(); err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	return p
}

// TestCustomPlanDeterministic: the same seed gives the same plan byte for
// byte; another seed gives other keys.
func TestCustomPlanDeterministic(t *testing.T) {
	sc := mustSpec(t, validSpec)
	gen := func(seed uint64) string {
		b, _ := json.Marshal(planOf(t, sc, seed, 2))
		return string(b)
	}
	if first, again := gen(7), gen(7); first != again {
		t.Fatal("seed 7 gave two plans")
	}
	a, b := planOf(t, sc, 7, 2), planOf(t, sc, 8, 2)
	keys := map[string]bool{}
	for _, op := range a.Ops {
		keys[op.Key] = op.Key != ""
	}
	for _, op := range b.Ops {
		if keys[op.Key] {
			t.Fatalf("seeds 7 and 8 share key %s", op.Key)
		}
	}
}

// TestCustomPlanShape: counts follow the shares exactly; duplicates share
// key, account and group; the faults land where the spec says.
func TestCustomPlanShape(t *testing.T) {
	sc := mustSpec(t, validSpec) // 5 keys (1 without), 2 duplicates together, half changed
	for seed := uint64(1); seed <= 20; seed++ {
		p := planOf(t, sc, seed, 2)
		byKey := map[string][]workload.Op{}
		keyless, changed := 0, 0
		for _, op := range p.Ops {
			if op.Key == "" {
				keyless++
				if op.MaxTries != 1 || op.Group != -1 {
					t.Fatalf("seed %d: keyless op %+v is retried or grouped", seed, op)
				}
				continue
			}
			byKey[op.Key] = append(byKey[op.Key], op)
		}
		if keyless != 1 || len(byKey) != 4 || len(p.Ops) != 13 || len(p.Accounts) != 4 {
			t.Fatalf("seed %d: %d keyless, %d keys, %d ops", seed, keyless, len(byKey), len(p.Ops))
		}
		for k, ops := range byKey {
			first := ops[0]
			for _, op := range ops[1:] {
				if op.Group != first.Group || op.Group < 0 || op.Account != first.Account || op.Delay != first.Delay {
					t.Fatalf("seed %d key %s: %+v is not released with %+v", seed, k, op, first)
				}
				if op.Amount != first.Amount {
					changed++
				}
			}
		}
		if changed != 4 { // half of the 8 duplicates
			t.Fatalf("seed %d: %d changed amounts; want 4", seed, changed)
		}
		checkFaults(t, seed, p)
	}
}

func checkFaults(t *testing.T, seed uint64, p workload.Plan) {
	t.Helper()
	drops, latency, cuts := 0, 0, 0
	for _, f := range p.Faults() {
		switch {
		case f.Try == 1 && f.Fault == "drop-response" && f.Inject.IsZero():
			drops++
		case f.Try == 2 && f.Inject.String() == "pg-latency:300ms@before-commit" && f.Fault == "":
			latency++
		case f.Try == 2 && f.Inject.String() == "redis-cut@after-commit" && f.Fault == "drop-response":
			cuts++
		default:
			t.Fatalf("seed %d: unexpected fault %+v", seed, f)
		}
	}
	// drops: half of 13 requests; try 2 exists on the 12 keyed ones.
	if drops != 7 || latency != 4 || cuts != 6 {
		t.Fatalf("seed %d: %d drops, %d latency, %d cuts; want 7, 4, 6", seed, drops, latency, cuts)
	}
}

func TestCustomSequentialDuplicatesChain(t *testing.T) {
	sc := mustSpec(t, "name: seq\ntraffic: {keys: 3, duplicates: 2, spread: 1s}\n")
	p := planOf(t, sc, 1, 1)
	for i, op := range p.Ops {
		switch i % 3 {
		case 0:
			if op.After != -1 {
				t.Fatalf("first of a key waits: %+v", op)
			}
		default:
			if op.After != i-1 || op.Delay != 0 || op.Key != p.Ops[i-1].Key || op.Group != -1 {
				t.Fatalf("duplicate %+v does not follow op %d", op, i-1)
			}
		}
	}
}

// TestExamplesParse: every example file reads and, for scenarios, builds
// plans that pass Validate on several seeds.
func TestExamplesParse(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.*")
	var scenarios, profiles int
	for _, f := range files {
		switch base := filepath.Base(f); {
		case strings.HasPrefix(base, "profile-"):
			profiles++
			if _, err := LoadProfile(f); err != nil {
				t.Error(err)
			}
		case strings.HasSuffix(base, ".yaml"):
			scenarios++
			s, err := Load(f, reserved)
			if err != nil {
				t.Error(err)
				continue
			}
			for seed := uint64(1); seed <= 5; seed++ {
				planOf(t, s, seed, 1)
			}
		}
	}
	if _, err := os.Stat("../../examples/retry-burst.yaml"); err != nil || scenarios < 1 || profiles < 1 {
		t.Fatalf("examples: %d scenarios, %d profiles, %v", scenarios, profiles, err)
	}
}
