package scenarios

import (
	"fmt"

	"github.com/idemchaos/idemchaos/targets/api"
)

// ParseSpec reads a scenario file (YAML; JSON is YAML too). Decoding is
// strict: an unknown field, a value of the wrong type or a YAML syntax error
// is an error, and so is a spec that Validate refuses. Every error is one
// line naming the field path ("faults[1].share: 1.5 is not in (0, 1]").
// Fields left out get their defaults, so the spec returned is complete.
func ParseSpec(data []byte) (Spec, error) { return parseSpec(data, "") }

// LoadSpec reads the scenario file at path; the spec remembers the path.
func LoadSpec(path string) (Spec, error) {
	data, err := api.ReadFileLimited(path)
	if err != nil {
		return Spec{}, fmt.Errorf("scenario file %s: %w", path, err)
	}
	return parseSpec(data, path)
}

func parseSpec(data []byte, path string) (Spec, error) {
	var s Spec
	err := api.DecodeStrictYAML(data, &s)
	if err == nil {
		err = s.Validate()
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
	s.File = path
	return s, nil
}
