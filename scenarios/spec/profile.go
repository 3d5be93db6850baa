package spec

import (
	"fmt"
	"net/http"

	"github.com/idemchaos/idemchaos/internal/strictyaml"
	"github.com/idemchaos/idemchaos/targets/api"
)

// profileFile is a custom profile as written in a file (YAML or JSON).
// Statuses left out keep the ietf value.
type profileFile struct {
	Name         string `yaml:"name"`
	MissingKey   int    `yaml:"missing_key" default:"400"`
	InFlight     int    `yaml:"in_flight" default:"409"`
	Mismatch     int    `yaml:"mismatch" default:"422"`
	ReplayHeader string `yaml:"replay_header"`
	ReplayErrors bool   `yaml:"replay_errors"`
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
	return api.Profile{Name: f.Name, MissingKey: f.MissingKey, InFlight: f.InFlight, Mismatch: f.Mismatch,
		ReplayHeader: http.CanonicalHeaderKey(f.ReplayHeader), ReplayErrors: f.ReplayErrors}
}
