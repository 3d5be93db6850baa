// Package scenarios is the pure core of idemchaos: the scenario catalog
// and the plans each scenario builds from a seed, the self-checks that make
// a run inconclusive when it did not exercise what it claims, the declared
// expectations of every built-in strategy (and the demo tables beside
// them), and the data a cell becomes: Cell (what to run), Record (what it
// observed, saved in a run directory) and Result (the judged cell every
// report renders). Judge turns a Record into a Result; it is a pure
// function, so a saved run is judged again offline with the same verdict.
//
// The package does no I/O: running a cell is package engine's job, and
// nothing here links a store client or Toxiproxy.
//
// Result, Verdict, Class, Cell and SkipError are part of the public API
// (package scenariotest returns them, and the JSON documents follow them);
// the rest may change between releases.
package scenarios
