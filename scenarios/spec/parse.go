package spec

import (
	"fmt"

	"github.com/idemchaos/idemchaos/internal/strictyaml"
)

// Parse reads a scenario file (YAML; JSON is YAML too). Decoding is
// strict: an unknown field, a value of the wrong type or a YAML syntax error
// is an error, and so is a spec that Validate refuses. Every error is one
// line naming the field path ("faults[1].share: 1.5 is not in (0, 1]").
// Fields left out get their defaults, so the spec returned is complete.
// reserved are the names a scenario file may not take (the built-in
// scenarios').
func Parse(data []byte, reserved []string) (Spec, error) { return parseSpec(data, "", reserved) }

// Load reads the scenario file at path; the spec remembers the path.
func Load(path string, reserved []string) (Spec, error) {
	data, err := strictyaml.ReadFile(path)
	if err != nil {
		return Spec{}, fmt.Errorf("scenario file %s: %w", path, err)
	}
	return parseSpec(data, path, reserved)
}

func parseSpec(data []byte, path string, reserved []string) (Spec, error) {
	var s Spec
	err := strictyaml.Decode(data, &s)
	if err == nil {
		err = s.Validate(reserved)
	}
	if err != nil {
		if path == "" {
			return Spec{}, fmt.Errorf("scenario file: %w", err)
		}
		return Spec{}, fmt.Errorf("scenario file %s: %w", path, err)
	}
	if len(s.Faults) == 0 {
		s.Faults = nil // "faults: []" reads back from JSON as none
	}
	if len(s.Explore.Cases) == 0 {
		s.Explore.Cases = nil // as "explore: {cases: []}" asks for nothing
	}
	s.File = path
	return s, nil
}
