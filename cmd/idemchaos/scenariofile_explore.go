package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/explore"
	"github.com/idemchaos/idemchaos/scenarios/spec"
)

// fileExplore is the cases a scenario file asks explore for (none: nil);
// a name that is no case is a usage error naming the item.
func fileExplore(s spec.Spec) ([]explore.Case, error) {
	if !s.Explore.Asked() {
		return nil, nil
	}
	cases, i, err := parseCases(s.Explore.Cases)
	if err != nil {
		return nil, usageErrorf("scenario file %s: explore.cases[%d]: %v", s.File, i, err)
	}
	return cases, nil
}

// cellExplore is the exploration the cell's scenario file asks for, with
// explore's defaults (every order of two requests, the bound measured)
// under the cell's profile and seed; false when it asks for none.
func cellExplore(c scenarios.Cell) (engine.ExploreSpec, bool) {
	if c.Custom == nil {
		return engine.ExploreSpec{}, false
	}
	cases, err := fileExplore(*c.Custom)
	if err != nil || cases == nil { // read with the file: never an error here
		return engine.ExploreSpec{}, false
	}
	return engine.ExploreSpec{Cases: cases, Requests: 2, Preemptions: -1, Recheck: defaultRecheck, Workers: runtime.NumCPU(),
		Profile: c.Profile, Seed: c.Seed}, true
}

// tellExplore adds to a dry run of a cell what it would explore.
func tellExplore(w io.Writer, c scenarios.Cell) error {
	if _, ok := cellExplore(c); !ok {
		return nil
	}
	_, err := fmt.Fprintf(w, "dry run: then explore every order of %s (the scenario file's explore)\n", strings.Join(c.Custom.Explore.Cases, ", "))
	return err
}
