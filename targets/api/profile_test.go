package api

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestProfileJSONCompatible: a profile saved before in_flight_wait existed
// reads as a service that does not wait, and one that does not wait is
// written as before.
func TestProfileJSONCompatible(t *testing.T) {
	old := `{"name":"ietf","missing_key":400,"in_flight":409,"mismatch":422,"replay_errors":false}`
	var p Profile
	if err := json.Unmarshal([]byte(old), &p); err != nil || !reflect.DeepEqual(p, IETF) {
		t.Fatalf("old document: %+v, %v", p, err)
	}
	b, err := json.Marshal(IETF)
	if err != nil || string(b) != old {
		t.Fatalf("ietf is written %s, %v; want %s", b, err, old)
	}
	waits := Profile{Name: "patient", MissingKey: 400, InFlight: 409, InFlightWait: true, Mismatch: 422}
	b, _ = json.Marshal(waits)
	var back Profile
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, waits) || !strings.Contains(string(b), `"in_flight_wait":true`) {
		t.Fatalf("round trip %s: %+v, %v", b, back, err)
	}
	if err := ValidateProfile(waits); err != nil {
		t.Fatalf("a waiting profile is refused: %v", err)
	}
}

// TestProfileStatusSets: a profile's in-flight and mismatch statuses are
// sets, the status the targets answer first; a status is judged against
// the whole set, and the set is named as a sentence does.
func TestProfileStatusSets(t *testing.T) {
	p := Profile{Name: "split", MissingKey: 400, InFlight: 409, InFlightAlso: []int{425}, Mismatch: 422, MismatchAlso: []int{409, 400}}
	if err := ValidateProfile(p); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		status             int
		inFlight, mismatch bool
	}{{409, true, true}, {425, true, false}, {422, false, true}, {400, false, true}, {429, false, false}, {0, false, false}} {
		if p.IsInFlight(c.status) != c.inFlight || p.IsMismatch(c.status) != c.mismatch {
			t.Errorf("%d: in flight %v, mismatch %v; want %v, %v", c.status, p.IsInFlight(c.status), p.IsMismatch(c.status), c.inFlight, c.mismatch)
		}
	}
	if got := p.InFlightSet().String() + "; " + p.MismatchSet().String() + "; " + IETF.InFlightSet().String(); got != "409 or 425; 422, 409 or 400; 409" {
		t.Errorf("the sets are named %q", got)
	}
	if IETF.IsInFlight(425) || !IETF.IsInFlight(409) || !IETF.IsMismatch(422) || (Profile{}).IsMismatch(0) || !(Profile{}).IsInFlight(409) {
		t.Error("a profile of one status judges by another")
	}
	b, _ := json.Marshal(p)
	var back Profile
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, p) ||
		!strings.Contains(string(b), `"in_flight":409,"in_flight_also":[425]`) || !strings.Contains(string(b), `"mismatch":422,"mismatch_also":[409,400]`) {
		t.Fatalf("round trip %s: %+v, %v", b, back, err)
	}
	for _, c := range []struct {
		p    Profile
		want string
	}{
		{Profile{Name: "a", InFlight: 409, InFlightAlso: []int{409}, Mismatch: 422}, "in_flight: 409 is given twice"},
		{Profile{Name: "a", InFlight: 409, InFlightAlso: []int{600}, Mismatch: 422}, "in_flight: 600 is not a 4xx status"},
		{Profile{Name: "a", InFlight: 409, Mismatch: 422, MismatchAlso: []int{0}}, "mismatch: 0 is not allowed here"},
		{Profile{Name: "a", InFlight: 409, Mismatch: 422, MismatchAlso: []int{402}}, "mismatch: 402 is taken"},
	} {
		if err := ValidateProfile(c.p); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: %v; want %s", c.p, err, c.want)
		}
	}
}
