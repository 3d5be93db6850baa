package main

import (
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
)

func TestDefaultParallel(t *testing.T) {
	for cpus, want := range map[int]int{1: 2, 2: 4, 3: 6, 4: 8, 64: 8} {
		if got := defaultParallel(cpus); got != want {
			t.Errorf("%d CPUs: %d cells at once, want %d", cpus, got, want)
		}
	}
}

func TestCellTime(t *testing.T) {
	rs := []scenarios.Result{{DurationMS: 3000}, {DurationMS: 5000}, {DurationMS: 2000}}
	got := cellTime(2*time.Second, rs, 4)
	if !strings.Contains(got, "sum to 10s") || !strings.Contains(got, "wall / sum 0.20") {
		t.Errorf("%q", got)
	}
}
