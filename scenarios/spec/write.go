package spec

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// YAML writes the spec as a scenario file that Parse reads back as the
// same spec, after head: comment lines ("# " is added to each).
func (s Spec) YAML(head ...string) ([]byte, error) {
	var b bytes.Buffer
	for _, h := range head {
		for line := range strings.SplitSeq(h, "\n") {
			b.WriteString(strings.TrimRight("# "+line, " ") + "\n")
		}
	}
	if len(head) > 0 {
		b.WriteString("\n")
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("scenario file: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("scenario file: %w", err)
	}
	return b.Bytes(), nil
}
