package main

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
)

func TestDefaultParallel(t *testing.T) {
	for cpus, want := range map[int]int{1: 3, 2: 6, 3: 8, 4: 8, 64: 8} {
		if got := defaultParallel(cpus); got != want {
			t.Errorf("%d CPUs: %d cells at once, want %d", cpus, got, want)
		}
	}
}

// TestMatrixParallelByDefault: without --parallel the matrix runs
// defaultParallel cells at once, and says so.
func TestMatrixParallelByDefault(t *testing.T) {
	o := cli(t, "matrix", "--strategies", "pg-tx,memory", "--scenarios", "missing-key,payload-mismatch,business-refusal,dropped-response", "--seeds", "1")
	want := fmt.Sprintf("%d cells at once", defaultParallel(runtime.NumCPU()))
	if o.code != 0 || !strings.Contains(o.stdout+o.stderr, want) {
		t.Fatalf("exit %d, want 0 and %q\nstdout:\n%s\nstderr:\n%s", o.code, want, o.stdout, o.stderr)
	}
}

func TestCellTime(t *testing.T) {
	rs := []scenarios.Result{{DurationMS: 3000}, {DurationMS: 5000}, {DurationMS: 2000}}
	got := cellTime(2*time.Second, rs, 4)
	if !strings.Contains(got, "sum to 10s") || !strings.Contains(got, "wall / sum 0.20") {
		t.Errorf("%q", got)
	}
}
