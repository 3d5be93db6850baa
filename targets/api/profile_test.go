package api

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestProfileJSONCompatible: a profile saved before in_flight_wait existed
// reads as a service that does not wait, and one that does not wait is
// written as before.
func TestProfileJSONCompatible(t *testing.T) {
	old := `{"name":"ietf","missing_key":400,"in_flight":409,"mismatch":422,"replay_errors":false}`
	var p Profile
	if err := json.Unmarshal([]byte(old), &p); err != nil || p != IETF {
		t.Fatalf("old document: %+v, %v", p, err)
	}
	b, err := json.Marshal(IETF)
	if err != nil || string(b) != old {
		t.Fatalf("ietf is written %s, %v; want %s", b, err, old)
	}
	waits := Profile{Name: "patient", MissingKey: 400, InFlight: 409, InFlightWait: true, Mismatch: 422}
	b, _ = json.Marshal(waits)
	var back Profile
	if err := json.Unmarshal(b, &back); err != nil || back != waits || !strings.Contains(string(b), `"in_flight_wait":true`) {
		t.Fatalf("round trip %s: %+v, %v", b, back, err)
	}
	if err := ValidateProfile(waits); err != nil {
		t.Fatalf("a waiting profile is refused: %v", err)
	}
}
