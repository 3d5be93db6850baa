package scenarios

import "errors"

// Spec is a scenario defined in a file from the building blocks (traffic
// shape, duplicates, payload changes, faults and their timing). It is saved
// with the cell, so a saved run is judged again without the file.
type Spec struct {
	Name string `json:"name"`
}

// Scenario builds the runnable scenario the spec describes.
func (s Spec) Scenario() (Scenario, error) {
	return Scenario{}, errors.New("scenario files are not built yet")
}
