// Package spec is the language of the files a user writes for idemchaos: a
// scenario file (Spec: traffic, duplicates, payload changes, retries,
// faults and their timing, from the building blocks) and a custom contract
// profile file. Decoding is strict and every error is one line naming the
// field; what is read is complete (every default filled) and bounded, so a
// saved Spec is judged again without its file. The format is documented in
// examples/README.md and is a stable API; the Go types follow it.
package spec

// Spec is a scenario defined in a file from the building blocks (traffic
// shape, duplicates, payload changes, faults and their timing). It is saved
// with the cell, so a saved run is judged again without the file. The file
// format is documented in examples/README.md; Parse and Load read it
// and fill every default, so a saved spec is complete.
type Spec struct {
	Name     string   `json:"name" yaml:"name"`
	Doc      string   `json:"doc,omitempty" yaml:"doc"`
	Reveals  string   `json:"reveals,omitempty" yaml:"reveals"`
	File     string   `json:"file,omitempty" yaml:"-"` // where it was read from
	Accounts Accounts `json:"accounts" yaml:"accounts"`
	Traffic  Traffic  `json:"traffic" yaml:"traffic"`
	Retries  Retries  `json:"retries" yaml:"retries"`
	Faults   []Fault  `json:"faults,omitempty" yaml:"faults"`
	Probe    bool     `json:"probe,omitempty" yaml:"probe"`
	Target   Target   `json:"target" yaml:"target"`
	Power    Power    `json:"power" yaml:"power"`
	Explore  Explore  `json:"explore,omitzero" yaml:"explore,omitempty"`
}

// Shown is what reports call the scenario: its reveals line, else where it
// came from.
func (s Spec) Shown() string {
	switch {
	case s.Reveals != "":
		return s.Reveals
	case s.File != "":
		return "custom scenario from " + s.File
	}
	return "custom scenario " + s.Name
}

// Races reports whether the spec releases duplicates together: a run that
// never overlapped two of them on the server proved nothing.
func (s Spec) Races() bool { return s.Traffic.Together && s.Traffic.Duplicates > 0 }

// DropsResponses reports whether a fault of the spec drops responses.
func (s Spec) DropsResponses() bool {
	for _, f := range s.Faults {
		if f.Kind == KindDropResponse || f.DropResponse {
			return true
		}
	}
	return false
}

// Injects reports whether a fault of the spec fires inside the target.
func (s Spec) Injects() bool {
	for _, f := range s.Faults {
		if f.Kind != KindDropResponse {
			return true
		}
	}
	return false
}
