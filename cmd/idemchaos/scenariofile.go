package main

import (
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/spec"
	"github.com/idemchaos/idemchaos/targets/api"
)

// scenarioCell resolves --scenario NAME or --scenario-file FILE (one of
// them) into the scenario fields of a cell.
func scenarioCell(name, file string) (scenarios.Cell, error) {
	switch {
	case name != "" && file != "":
		return scenarios.Cell{}, usageErrorf("--scenario and --scenario-file: give one")
	case file != "":
		return fileCell(file)
	}
	if err := requireName("scenario", name, scenarios.Names()); err != nil {
		return scenarios.Cell{}, err
	}
	return scenarios.Cell{Scenario: name}, nil
}

// fileCell reads a scenario file; a bad file is a usage error naming the
// field (a case of its explore section that is none, too).
func fileCell(file string) (scenarios.Cell, error) {
	s, err := spec.Load(file, scenarios.Names())
	if err != nil {
		return scenarios.Cell{}, usageErrorf("%v", err)
	}
	if _, err := fileExplore(s); err != nil {
		return scenarios.Cell{}, err
	}
	return scenarios.Cell{Scenario: s.Name, Custom: &s}, nil
}

// matrixScenarios is the scenario list of a matrix: the named ones (all,
// those all lists, when neither flag is given) and the file's.
func matrixScenarios(names, file string, all []string) ([]scenarios.Cell, error) {
	var out []scenarios.Cell
	if names != "" || file == "" {
		list, err := splitList("scenarios", names, scenarios.Names())
		if names == "" {
			list = all
		}
		if err != nil {
			return nil, err
		}
		for _, n := range list {
			out = append(out, scenarios.Cell{Scenario: n})
		}
	}
	if file != "" {
		c, err := fileCell(file)
		if err != nil {
			return nil, err
		}
		if c.Custom.Explore.Asked() {
			return nil, usageErrorf("scenario file %s asks for an exploration (explore:): idemchaos run explores its target, a matrix does not", file)
		}
		out = append(out, c)
	}
	return out, nil
}

// crossCells is every scenario with every seed.
func crossCells(scens []scenarios.Cell, seeds []uint64, profile api.Profile) []scenarios.Cell {
	var out []scenarios.Cell
	for _, sc := range scens {
		for _, seed := range seeds {
			sc.Seed, sc.Profile = seed, profile
			out = append(out, sc)
		}
	}
	return out
}
