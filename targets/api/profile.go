package api

import (
	"fmt"
	"slices"
	"sort"
)

// Profile is the idempotency contract a target promises: the status code for
// each defined situation and the replay policy. The checker judges status codes
// against it; universal invariants hold whatever the profile.
type Profile struct {
	Name string `json:"name"`
	// MissingKey is the status for a POST without a key; 0 means the request is
	// allowed and simply not idempotent.
	MissingKey int `json:"missing_key"`
	// InFlight is the status for a duplicate while the first is still running:
	// the one the built-in targets answer.
	InFlight int `json:"in_flight"`
	// InFlightAlso are the other statuses the service may answer such a
	// duplicate (a profile file's "in_flight: [409, 425]" gives 425 here):
	// the checker accepts any status of the set (IsInFlight). Absent from
	// older documents: InFlight alone.
	InFlightAlso []int `json:"in_flight_also,omitempty"`
	// InFlightWait says the service holds such a duplicate until the first
	// finishes and then answers it, by design (a profile file's
	// "in_flight: wait"): held duplicates are then not a finding. InFlight
	// stays the status of a duplicate it does refuse. Absent from older
	// documents, which read as false: the service does not wait.
	InFlightWait bool `json:"in_flight_wait,omitempty"`
	// Mismatch is the status for a key reused with another payload: the one
	// the built-in targets answer.
	Mismatch int `json:"mismatch"`
	// MismatchAlso are the other statuses the service may answer a key
	// reused with another payload ("mismatch: [422, 409]" gives 409 here);
	// the checker accepts any status of the set (IsMismatch).
	MismatchAlso []int `json:"mismatch_also,omitempty"`
	// ReplayHeader, when set, must be present on every replayed response.
	ReplayHeader string `json:"replay_header,omitempty"`
	// ReplayErrors allows a 5xx to be replayed for a key whose work committed nothing.
	ReplayErrors bool `json:"replay_errors"`
	// RedecideRefusals says the service does not keep a business refusal
	// (StatusDeclined) with its key, by design: a retry of a declined key
	// is decided again, and may charge once the account is funded (a
	// profile file's "replay_refusals: false"). The checker then reports
	// refusal_not_replayed as a documented deviation, not an anomaly.
	// Absent from older documents, which read as false: a refusal must be
	// replayed, as ietf (the draft: a retry gets the earlier result,
	// "success or an error") and stripe (a decline is replayed) require.
	RedecideRefusals bool `json:"redecide_refusals,omitempty"`
	// File is where a custom profile was read from (empty: built in).
	File string `json:"file,omitempty"`
}

// InFlightStatus is the status of a duplicate in flight: InFlight, 409
// when a profile leaves it unset.
func (p Profile) InFlightStatus() int {
	if p.InFlight == 0 {
		return 409
	}
	return p.InFlight
}

// InFlightSet is every status of a duplicate in flight, InFlightStatus
// first.
func (p Profile) InFlightSet() Statuses {
	return append(Statuses{p.InFlightStatus()}, p.InFlightAlso...)
}

// IsInFlight reports whether status is one the profile answers a duplicate
// in flight.
func (p Profile) IsInFlight(status int) bool {
	return status == p.InFlightStatus() || slices.Contains(p.InFlightAlso, status)
}

// MismatchSet is every status of a key reused with another payload,
// Mismatch first; empty when a profile leaves Mismatch unset.
func (p Profile) MismatchSet() Statuses {
	if p.Mismatch == 0 {
		return nil
	}
	return append(Statuses{p.Mismatch}, p.MismatchAlso...)
}

// IsMismatch reports whether status is one the profile answers a key
// reused with another payload.
func (p Profile) IsMismatch(status int) bool {
	return p.Mismatch != 0 && (status == p.Mismatch || slices.Contains(p.MismatchAlso, status))
}

// IETF follows draft-ietf-httpapi-idempotency-key-header plus "never cache a 5xx".
var IETF = Profile{Name: "ietf", MissingKey: 400, InFlight: 409, Mismatch: 422}

// Stripe follows Stripe's documented behaviour.
var Stripe = Profile{Name: "stripe", MissingKey: 0, InFlight: 409, Mismatch: 400,
	ReplayHeader: HeaderReplayed, ReplayErrors: true}

var profiles = map[string]Profile{IETF.Name: IETF, Stripe.Name: Stripe}

// ProfileByName returns the built-in profile called name.
func ProfileByName(name string) (Profile, error) {
	p, ok := profiles[name]
	if !ok {
		return Profile{}, fmt.Errorf("unknown profile %q (known: %v)", name, ProfileNames())
	}
	return p, nil
}

// ProfileNames lists the built-in profiles in order.
func ProfileNames() []string {
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
