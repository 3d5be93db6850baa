package reports

import "github.com/idemchaos/idemchaos/results"

import "github.com/idemchaos/idemchaos/scenarios"

// hState is how a matrix cell reads to a person: its CSS class and icon
// are "st-"+Key and "i-"+Key, Word is what the cell says, Means what the
// legend says. Each meaning has its own icon and its own word.
type hState struct {
	Key, Word, Means string
}

// The states of a built-in matrix.
var (
	hPass   = hState{"pass", "pass", "passed, as the catalog declares for this strategy"}
	hCaught = hState{"caught", "caught", "a flawed strategy failed here with the anomalies its row declares: " +
		"the harness found the flaw it is built to find. Expected, nothing to fix"}
	hBroke = hState{"broke", "broke", "failed where the catalog declares otherwise (a strategy that must pass failed, " +
		"or other anomalies than declared showed): look at this first"}
	hVaries = hState{"varies", "varies", "a flawed strategy showed anomalies its row declares as showing on some seeds only " +
		"(they depend on how concurrent requests happen to meet): as declared, on the seeds shown"}
	hMissed = hState{"missed", "missed", "a flawed strategy passed where it is declared to fail: the flaw was not caught"}
	hUnsure = hState{"inconclusive", "inconclusive", "the run could not prove anything (one of its own checks failed): re-run it"}
)

// The states of a user's service, which has no catalog: it must pass.
var (
	sPass   = hState{"pass", "pass", "no invariant broken"}
	sBroke  = hState{"broke", "broke", "an invariant broke: your service needs a fix"}
	sUnsure = hState{"inconclusive", "inconclusive", "the run could not prove anything (one of its own checks failed): re-run it"}
)

// The states of a user's client (client mode): the rules of its half.
var (
	cPass  = hState{"pass", "pass", "the client kept its half of the contract"}
	cBroke = hState{"broke", "broke", "a rule of the client's half broke: your client needs a fix"}
)

// stateOf reads a cell for a person.
func stateOf(c results.Cell) hState {
	if scenarios.IsClientScenario(c.Scenario) {
		switch c.Verdict() {
		case scenarios.Fail:
			return cBroke
		case scenarios.Inconclusive:
			return sUnsure
		}
		return cPass
	}
	if c.Service() {
		switch {
		case c.Verdict() == scenarios.Fail:
			return sBroke
		case c.Verdict() == scenarios.Inconclusive:
			return sUnsure
		}
		return sPass
	}
	switch classify(c) {
	case stUnexpected:
		if c.Verdict() == scenarios.Fail {
			return hBroke
		}
		return hMissed
	case stInconclusive:
		return hUnsure
	case stCaught:
		if markOf(c).varies {
			return hVaries
		}
		return hCaught
	}
	return hPass
}

// legendOf lists one entry per state a page can show; varies only where
// a cell of the page varies.
func legendOf(service, client, varies bool) []hState {
	if client {
		return []hState{cPass, cBroke, sUnsure}
	}
	if service {
		return []hState{sPass, sBroke, sUnsure}
	}
	if varies {
		return []hState{hPass, hCaught, hVaries, hBroke, hMissed, hUnsure}
	}
	return []hState{hPass, hCaught, hBroke, hMissed, hUnsure}
}
