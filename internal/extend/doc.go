// Package extend holds tests only: a strategy and an anomaly added to
// idemchaos by their definitions alone (strategy.Register, check.Register),
// run through the engine on real stores, judged against what the strategy
// declares and rendered like the built-in ones. Its test binary is the only
// one that registers them, so no other package's catalog sees them.
//
// It is an internal part of idemchaos, not a stable API.
package extend
