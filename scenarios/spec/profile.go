package spec

import (
	"fmt"
	"net/http"
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
	Mismatch     int      `yaml:"mismatch" default:"422"`
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
	return api.Profile{Name: f.Name, MissingKey: f.MissingKey, InFlight: f.InFlight.status,
		InFlightWait: f.InFlight.wait, Mismatch: f.Mismatch,
		ReplayHeader: http.CanonicalHeaderKey(f.ReplayHeader), ReplayErrors: f.ReplayErrors,
		RedecideRefusals: !f.ReplayRefusals}
}

// inFlight is the in_flight field: the status of a duplicate sent while the
// first request of its key runs, or the word wait: the service holds such a
// duplicate until the first finishes, then answers it, by design. With wait
// the status stays ietf's 409, for a duplicate the service does refuse.
type inFlight struct {
	status int
	wait   bool
}

// waitWord is what a profile file writes for a service that waits.
const waitWord = "wait"

func (f *inFlight) UnmarshalScalar(tag, text, got string) error {
	*f = inFlight{}
	switch {
	case tag == "!!int":
		n, err := strconv.ParseInt(text, 0, 32)
		if err != nil {
			return fmt.Errorf("want a 4xx status or %s, got %s", waitWord, got)
		}
		f.status = int(n)
	case tag == "!!str" && text == waitWord:
		f.status, f.wait = api.IETF.InFlight, true
	case tag == "!!str" && isNumber(text):
		return fmt.Errorf("want an integer, got %s", got) // a quoted status is a string
	default:
		return fmt.Errorf("want a 4xx status or %s, got %s", waitWord, got)
	}
	return nil
}

// isNumber reports whether s is a decimal integer.
func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}
