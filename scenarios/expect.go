package scenarios

import "sort"

// expected declares, per strategy, the scenarios it must fail and the
// anomalies that must show there. A strategy absent from a scenario's row
// must pass it. This is the track record: a flawed strategy that stops being
// caught is a regression of the harness.
var expected = map[string]map[string][]string{
	"none": {
		"concurrent-duplicates": {"double_charge"},
		"dropped-response":      {"double_charge"},
		"payload-mismatch":      {"double_charge", "mismatch_executed"},
		"missing-key":           {"status_contract"},
	},
	"redis-getset": {
		"concurrent-duplicates": {"double_charge"},
	},
}

// Expected returns the anomalies strategy must show under scenario; empty
// means it must pass.
func Expected(strategy, scenario string) []string {
	out := append([]string(nil), expected[strategy][scenario]...)
	sort.Strings(out)
	return out
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
	return true
}
