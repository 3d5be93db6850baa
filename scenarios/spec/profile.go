package spec

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/idemchaos/idemchaos/internal/strictyaml"
	"github.com/idemchaos/idemchaos/targets/api"
)

// profileFile is a custom profile as written in a file (YAML or JSON).
// Fields left out keep the ietf value.
type profileFile struct {
	Name         string   `yaml:"name"`
	MissingKey   int      `yaml:"missing_key" default:"400"`
	InFlight     inFlight `yaml:"in_flight" default:"409"`
	Mismatch     statuses `yaml:"mismatch" default:"422"`
	ReplayHeader string   `yaml:"replay_header"`
	ReplayErrors bool     `yaml:"replay_errors"`
	// ReplayRefusals: a declined charge's 402 is kept with its key and
	// replayed (true, ietf's and stripe's rule); false, a retry of a
	// declined key is decided again, by design.
	ReplayRefusals bool `yaml:"replay_refusals" default:"true"`
}

// ParseProfile reads a custom profile from YAML or JSON. Decoding is strict
// (see internal/strictyaml) and the profile is validated; every error is one
// line naming the field.
func ParseProfile(data []byte) (api.Profile, error) { return parseProfile(data, "") }

// LoadProfile reads a custom profile from the file at path; the profile
// remembers the path (File).
func LoadProfile(path string) (api.Profile, error) {
	data, err := strictyaml.ReadFile(path)
	if err != nil {
		return api.Profile{}, fmt.Errorf("profile file %s: %w", path, err)
	}
	return parseProfile(data, path)
}

func parseProfile(data []byte, path string) (api.Profile, error) {
	var f profileFile
	err := strictyaml.Decode(data, &f)
	var p api.Profile
	if err == nil {
		p = f.profile()
		err = api.ValidateProfile(p)
	}
	if err != nil {
		if path == "" {
			return api.Profile{}, fmt.Errorf("profile file: %w", err)
		}
		return api.Profile{}, fmt.Errorf("profile file %s: %w", path, err)
	}
	p.File = path
	return p, nil
}

func (f profileFile) profile() api.Profile {
	inFlight, inFlightAlso := f.InFlight.statuses.split()
	mismatch, mismatchAlso := f.Mismatch.split()
	return api.Profile{Name: f.Name, MissingKey: f.MissingKey, InFlight: inFlight, InFlightAlso: inFlightAlso,
		InFlightWait: f.InFlight.wait, Mismatch: mismatch, MismatchAlso: mismatchAlso,
		ReplayHeader: http.CanonicalHeaderKey(f.ReplayHeader), ReplayErrors: f.ReplayErrors,
		RedecideRefusals: !f.ReplayRefusals}
}

// statuses is a status field: one status, or a list of them, any of which
// the service may answer; the first is the one the built-in targets
// answer. The statuses themselves are checked with the profile
// (api.ValidateProfile).
type statuses []int

func (s *statuses) UnmarshalScalar(tag, text, got string) error {
	n, err := status(tag, text, got, "a 4xx status or a list of them")
	*s = statuses{n}
	return err
}

func (s *statuses) UnmarshalList(items []strictyaml.Scalar) error {
	*s = nil
	if len(items) == 0 {
		return fmt.Errorf("want at least one 4xx status, got an empty list")
	}
	for i, it := range items {
		n, err := status(it.Tag, it.Text, it.Got, "a 4xx status")
		if err != nil {
			return &strictyaml.ItemError{Index: i, Err: err}
		}
		*s = append(*s, n)
	}
	return nil
}

// split is the first status and the others (nil when there are none).
func (s statuses) split() (int, []int) {
	if len(s) == 0 {
		return 0, nil
	}
	if len(s) == 1 {
		return s[0], nil
	}
	return s[0], slices.Clone(s[1:])
}

// status reads one status; want says what the field takes, for the error.
func status(tag, text, got, want string) (int, error) {
	switch {
	case tag == "!!int":
		n, err := strconv.ParseInt(text, 0, 32)
		if err == nil {
			return int(n), nil
		}
	case tag == "!!str" && isNumber(text):
		return 0, fmt.Errorf("want an integer, got %s", got) // a quoted status is a string
	}
	return 0, fmt.Errorf("want %s, got %s", want, got)
}

// inFlight is the in_flight field: the statuses of a duplicate sent while
// the first request of its key runs, or the word wait: the service holds
// such a duplicate until the first finishes, then answers it, by design.
// With wait the status stays ietf's 409, for a duplicate the service does
// refuse.
type inFlight struct {
	statuses statuses
	wait     bool
}

// waitWord is what a profile file writes for a service that waits.
const waitWord = "wait"

// inFlightWant is what in_flight takes, for an error.
const inFlightWant = "a 4xx status, a list of them or " + waitWord

func (f *inFlight) UnmarshalScalar(tag, text, got string) error {
	*f = inFlight{}
	if tag == "!!str" && text == waitWord {
		f.statuses, f.wait = statuses{api.IETF.InFlight}, true
		return nil
	}
	n, err := status(tag, text, got, inFlightWant)
	f.statuses = statuses{n}
	return err
}

func (f *inFlight) UnmarshalList(items []strictyaml.Scalar) error {
	*f = inFlight{}
	return f.statuses.UnmarshalList(items)
}

// isNumber reports whether s is a decimal integer.
func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}
