package spec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/sim/workload"
)

// FuzzParseSpec: any input either fails with one line naming the file, or
// gives a spec that validates, round-trips through JSON and builds plans
// that pass Validate, with injections the runner can arm.
func FuzzParseSpec(f *testing.F) {
	f.Add([]byte("name: f\ntraffic: {keys: 2, duplicates: 1, together: true}\nfaults: [{kind: pg-cut, at: before-commit}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data, reserved)
		if err != nil {
			msg := err.Error()
			if strings.ContainsAny(msg, "\n\r") || !strings.HasPrefix(msg, "scenario file: ") {
				t.Fatalf("error %q is not one line about the file", msg)
			}
			return
		}
		if err := s.Validate(reserved); err != nil {
			t.Fatalf("parsed spec does not validate: %v", err)
		}
		checkRoundTrip(t, s)
		for seed := uint64(1); seed <= 2; seed++ {
			checkFuzzPlan(t, s, seed)
		}
	})
}

// TestFuzzSeedsAsNamed: the seed corpora's valid-* inputs parse and their
// invalid-* ones do not, so each corpus keeps covering both paths.
func TestFuzzSeedsAsNamed(t *testing.T) {
	for name, data := range fuzzSeeds(t, "testdata/fuzz/FuzzParseSpec") {
		_, err := Parse(data, reserved)
		if strings.HasPrefix(name, "valid-") != (err == nil) {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, data := range fuzzSeeds(t, "testdata/fuzz/FuzzParseProfile") {
		_, err := ParseProfile(data)
		if strings.HasPrefix(name, "valid-") != (err == nil) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// fuzzSeeds reads the []byte seeds of a corpus directory, by file name.
func fuzzSeeds(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no seeds in %s: %v", dir, err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lit, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "go test fuzz v1\n[]byte(")
		s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
		if !ok || err != nil {
			t.Fatalf("%s: not a []byte seed: %v", f, err)
		}
		out[filepath.Base(f)] = []byte(s)
	}
	return out
}

func checkRoundTrip(t *testing.T, s Spec) {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Spec
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, s) {
		t.Fatalf("JSON round trip: %v\n got %+v\nwant %+v", err, back, s)
	}
}

func checkFuzzPlan(t *testing.T, s Spec, seed uint64) {
	p := s.Plan(workload.Seeded(seed, "plan/"+s.Name), s.Target.Replicas)
	if err := p.Validate(); err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	for _, f := range p.Faults() {
		if err := f.Inject.Validate(); !f.Inject.IsZero() && err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}
