package api

import (
	"encoding/json"
	"strings"
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

// TestInjectionText: an injection writes as its string and reads back
// equal; the zero one writes as "", reads back from "", and a struct
// field tagged omitzero leaves it out; a malformed one is refused where it
// is read, and one that would not read back is refused where it is
// written.
func TestInjectionText(t *testing.T) {
	type holder struct {
		In Injection `json:"inject,omitzero"`
	}
	for _, in := range []Injection{
		{Action: Delay, Arg: 200 * time.Millisecond, Point: BeforeCommit},
		{Action: RedisCut, Point: AfterCommit},
		{Action: StandbyLag, Arg: 1300 * time.Millisecond, Point: BeforeCommit},
		{Action: PGCrash, Point: AfterCommit},
	} {
		b, err := json.Marshal(holder{in})
		if want := `{"inject":"` + in.String() + `"}`; err != nil || string(b) != want {
			t.Fatalf("%s: marshals as %s, %v; want %s", in, b, err, want)
		}
		var back holder
		if err := json.Unmarshal(b, &back); err != nil || back.In != in {
			t.Fatalf("%s: reads back as %+v, %v", in, back.In, err)
		}
		if in.IsZero() {
			t.Fatalf("%s is zero", in)
		}
	}
	if !(Injection{}).IsZero() {
		t.Fatal("the zero injection is not zero")
	}
	if b, err := json.Marshal(holder{}); err != nil || string(b) != `{}` {
		t.Fatalf("no injection marshals as %s, %v; want it left out", b, err)
	}
	if b, err := json.Marshal(Injection{}); err != nil || string(b) != `""` {
		t.Fatalf("the zero injection alone marshals as %s, %v", b, err)
	}
	back := holder{In: Injection{Action: PGCut, Point: AfterCheck}}
	if err := json.Unmarshal([]byte(`{"inject":""}`), &back); err != nil || !back.In.IsZero() {
		t.Fatalf(`{"inject":""} reads as %+v, %v; want no injection`, back.In, err)
	}
	for _, bad := range []string{"pg-cut", "pg-cut@nowhere", "melt@after-commit", "delay:1h@after-commit", "@after-commit"} {
		var h holder
		err := json.Unmarshal([]byte(`{"inject":"`+bad+`"}`), &h)
		if err == nil || !strings.Contains(err.Error(), `"`+bad+`"`) {
			t.Errorf("%q read as %+v, %v; want an error naming it", bad, h.In, err)
		}
	}
	for _, bad := range []Injection{{Action: "melt", Point: AfterCommit}, {Action: PGCut, Point: "nowhere"},
		{Action: Delay, Arg: -time.Second, Point: AfterCommit}, {Action: Delay, Arg: time.Hour, Point: AfterCommit}, {Point: AfterCommit}} {
		if b, err := json.Marshal(holder{bad}); err == nil {
			t.Errorf("%+v written as %s", bad, b)
		}
		if bad.Validate() == nil {
			t.Errorf("%+v validates", bad)
		}
	}
}
