package reports

import (
	"github.com/idemchaos/idemchaos/results"
	"slices"
)

// Adapted is how one scenario was changed to run against a user's service,
// as its results say (notes in first-seen order, each once).
type Adapted struct {
	Scenario string
	Notes    []string
}

// adaptations lists, in cell order, the scenarios whose results say they
// were adapted to the service.
func adaptations(cells []results.Cell) []Adapted {
	var out []Adapted
	at := map[string]int{}
	for _, c := range cells {
		for _, r := range c.Results {
			for _, n := range r.Adapted {
				i, ok := at[c.Scenario]
				if !ok {
					i = len(out)
					at[c.Scenario] = i
					out = append(out, Adapted{Scenario: c.Scenario})
				}
				if !slices.Contains(out[i].Notes, n) {
					out[i].Notes = append(out[i].Notes, n)
				}
			}
		}
	}
	return out
}
