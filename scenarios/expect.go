package scenarios

import (
	"sort"

	"github.com/idemchaos/idemchaos/targets/api"
)

// expected declares, per strategy, the scenarios it must fail and the
// anomalies that must show there. A strategy absent from a scenario's row
// must pass it. This is the track record: a flawed strategy that stops being
// caught is a regression of the harness.
var expected = map[string]map[string][]string{
	"none": {
		"concurrent-duplicates":    {"double_charge"},
		"forced-race":              {"double_charge"},
		"dropped-response":         {"double_charge"},
		"payload-mismatch":         {"double_charge", "mismatch_executed"},
		"db-fault-mid-request":     {"double_charge"}, // the probe charges again
		"redis-fault-after-commit": {"double_charge"},
		"slow-charge":              {"double_charge"},
		"replica-fanout":           {"double_charge"},
		"client-timeout-retry":     {"double_charge"},
		"missing-key":              {"status_contract"},
		"retry-storm":              {"double_charge"},
	},
	"memory": {
		"replica-fanout": {"double_charge"},
	},
	"redis-getset": {
		"concurrent-duplicates":    {"double_charge"},
		"forced-race":              {"double_charge"},
		"redis-fault-after-commit": {"double_charge"},
		"slow-charge":              {"double_charge"},
		"client-timeout-retry":     {"double_charge"},
		"retry-storm":              {"double_charge"},
	},
	"redis-setnx": {
		"redis-fault-after-commit": {"double_charge", "store_desync"},
		"slow-charge":              {"double_charge"},
	},
	"redis-sticky": {
		"db-fault-mid-request":     {"stuck_key"},
		"redis-fault-after-commit": {"stuck_key", "store_desync"},
	},
	"redis-cache-errors": {
		"db-fault-mid-request":     {"cached_error"},
		"redis-fault-after-commit": {"double_charge", "store_desync"},
		"slow-charge":              {"double_charge"},
	},
	"pg-split-tx": {
		"db-fault-mid-request": {"stuck_key"},
	},
	"pg-nofingerprint": {
		"payload-mismatch": {"mismatch_executed"},
	},
}

// mustNot lists anomalies a cell must not show even when it fails: a poisoned
// key is bad, but it must never be mistaken for a double charge.
var mustNot = map[string]map[string][]string{
	"redis-sticky":       {"db-fault-mid-request": {"double_charge"}},
	"redis-cache-errors": {"db-fault-mid-request": {"double_charge"}},
	"pg-split-tx":        {"db-fault-mid-request": {"double_charge"}},
}

// Expected returns the anomalies strategy must show under scenario when the
// target promises profile; empty means it must pass. The catalog is written
// for ietf; a profile that allows what ietf forbids (no key, a replayed 5xx)
// drops the anomalies that judge it.
func Expected(strategy, scenario string, profile api.Profile) []string {
	var out []string
	for _, name := range expected[strategy][scenario] {
		if allowedBy(profile, name) {
			continue
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// allowedBy reports whether profile makes anomaly name a permitted behaviour
// in the catalog's cells.
func allowedBy(p api.Profile, name string) bool {
	switch name {
	case "status_contract":
		return p.MissingKey == 0 // the only status_contract the catalog declares is a missing key
	case "cached_error":
		return p.ReplayErrors // the catalog's cached errors never moved money
	}
	return false
}

// matches reports whether a result is what the catalog declares.
func matches(r Result) bool {
	if len(r.Expected) == 0 {
		return r.Verdict == Pass
	}
	if r.Verdict != Fail {
		return false
	}
	for _, name := range r.Expected {
		if r.Anomalies[name] == 0 {
			return false
		}
	}
	for _, name := range mustNot[r.Strategy][r.Scenario] {
		if r.Anomalies[name] > 0 {
			return false
		}
	}
	return true
}
