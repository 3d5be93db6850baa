package reports

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
)

// TestOwnServiceLineSaysWhatEachNeeds: idemchaos list's line for a user's
// service names what runs with no help, with proxies and declared TTLs, and
// with the failpoint protocol, and leaves no scenario out: those that need
// idemchaos's own replicated Postgres, and only those, never run.
func TestOwnServiceLineSaysWhatEachNeeds(t *testing.T) {
	line := ownService()
	help := strings.Index(line, "with store proxies")
	protocol := strings.Index(line, "with the failpoint protocol (--failpoints")
	never := strings.Index(line, "; never: ")
	if !strings.HasPrefix(line, "runs concurrent-duplicates") || help < 0 || protocol < help || never >= 0 && never < protocol {
		t.Fatalf("line %q", line)
	}
	for _, sc := range scenarios.Catalog() {
		name := sc.Name
		at := strings.Index(line, name)
		switch {
		case at < 0:
			t.Errorf("%s missing from %q", name, line)
		case sc.Replicated != (never >= 0 && at > never):
			t.Errorf("%s: listed under never: %v, runs on the replicated Postgres: %v", name, at > never, sc.Replicated)
		case name == "forced-race":
			if at < protocol {
				t.Errorf("%s listed before the failpoint protocol", name)
			}
		case name == "client-timeout-retry":
			if at > help || !strings.Contains(line, "client-timeout-retry (if a charge takes 45ms or more: measured first)") {
				t.Errorf("%s not listed as running with no help on a slow service: %q", name, line)
			}
		case name == "db-fault-mid-request" || name == "key-expiry" || name == "replica-fanout" || name == "slow-charge" || name == "business-refusal":
			if at < help || at > protocol {
				t.Errorf("%s not listed with the proxies and TTLs", name)
			}
		}
	}
}
