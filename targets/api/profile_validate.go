package api

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// ProfileNamePattern is what a custom profile's name must match.
const ProfileNamePattern = `^[a-z0-9][a-z0-9-]{0,63}$`

var profileName = regexp.MustCompile(ProfileNamePattern)

// ValidateProfile checks a custom profile: a name of its own and statuses
// the targets can answer. The error names the field, in the terms of a
// profile file.
func ValidateProfile(p Profile) error {
	switch {
	case !profileName.MatchString(p.Name):
		return fmt.Errorf("name: %q must be 1 to 64 of a-z, 0-9 and '-', starting with a letter or digit", p.Name)
	case profiles[p.Name].Name != "":
		return fmt.Errorf("name: %q is a built-in profile; choose another name", p.Name)
	}
	if err := status4xx("missing_key", p.MissingKey, true); err != nil {
		return err
	}
	if err := statusSet("in_flight", p.InFlight, p.InFlightAlso); err != nil {
		return err
	}
	if err := statusSet("mismatch", p.Mismatch, p.MismatchAlso); err != nil {
		return err
	}
	return replayHeader(p.ReplayHeader)
}

// statusSet checks a set of refusal statuses: each a 4xx, none twice.
func statusSet(field string, first int, also []int) error {
	set := append([]int{first}, also...)
	for i, status := range set {
		if err := status4xx(field, status, false); err != nil {
			return err
		}
		if slices.Contains(set[:i], status) {
			return fmt.Errorf("%s: %d is given twice", field, status)
		}
	}
	return nil
}

// status4xx checks a refusal status; zeroAllowed: 0 means "not refused".
func status4xx(field string, status int, zeroAllowed bool) error {
	switch {
	case status == 0 && zeroAllowed:
		return nil
	case status == 0:
		return fmt.Errorf("%s: 0 is not allowed here; want a 4xx status", field)
	case status < 400 || status > 499:
		if zeroAllowed {
			return fmt.Errorf("%s: %d is not a 4xx status (or 0: allowed)", field, status)
		}
		return fmt.Errorf("%s: %d is not a 4xx status", field, status)
	case status == http.StatusPaymentRequired || status == http.StatusNotFound:
		return fmt.Errorf("%s: %d is taken: the targets answer it for insufficient funds or an unknown account", field, status)
	}
	return nil
}

// replayHeader accepts no header or the one the targets send on a replay:
// the client looks for no other, so any other name would flag every replay.
func replayHeader(h string) error {
	if h == "" || strings.EqualFold(h, HeaderReplayed) {
		return nil
	}
	return fmt.Errorf("replay_header: %q is not sent by the targets; want %q or none", truncate(h, 40), HeaderReplayed)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
