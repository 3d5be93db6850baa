package api

import (
	"testing"
	"time"
)

func TestParsePoint(t *testing.T) {
	for _, p := range Points() {
		if got, err := ParsePoint(string(p)); err != nil || got != p {
			t.Fatalf("%s: %v", p, err)
		}
	}
	if _, err := ParsePoint("mid-air"); err == nil {
		t.Fatal("unknown point accepted")
	}
}

func TestParseInjection(t *testing.T) {
	in, err := ParseInjection("pg-latency:500ms@before-commit")
	if err != nil || in != (Injection{Action: PGLatency, Arg: 500 * time.Millisecond, Point: BeforeCommit}) {
		t.Fatalf("got %+v, %v", in, err)
	}
	for _, bad := range []string{"pg-cut", "pg-cut@nowhere", "melt@after-commit", "delay:forever@after-commit",
		"delay:-1s@after-commit", "delay:1h@after-commit", "@after-commit"} {
		if _, err := ParseInjection(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestInjectionRoundTrip: what String writes, ParseInjection reads back to
// the same value, for every action and point.
func TestInjectionRoundTrip(t *testing.T) {
	for _, a := range Actions() {
		for _, p := range Points() {
			in := Injection{Action: a, Point: p}
			if a.TakesDuration() {
				in.Arg = 250 * time.Millisecond
			}
			got, err := ParseInjection(in.String())
			if err != nil || got != in {
				t.Fatalf("%s: got %+v, %v", in, got, err)
			}
		}
	}
	if s := (Injection{Action: Delay, Arg: 200 * time.Millisecond, Point: BeforeCommit}).String(); s != "delay:200ms@before-commit" {
		t.Fatalf("String() = %q", s)
	}
}

func TestActionKinds(t *testing.T) {
	for a, want := range map[Action][2]bool{Delay: {true, false}, PGLatency: {true, false}, PGCut: {false, true}, RedisCut: {false, true}} {
		if a.TakesDuration() != want[0] || a.CutsLink() != want[1] {
			t.Errorf("%s: takes duration %v, cuts a link %v", a, a.TakesDuration(), a.CutsLink())
		}
	}
}
