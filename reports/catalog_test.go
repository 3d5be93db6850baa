package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/strategy/design"

	// The InnoDB strategies register themselves, as in the command that
	// writes docs/catalog.md.
	_ "github.com/idemchaos/idemchaos/targets/strategy/innodb"
)

// TestOwnServiceLineSaysWhatEachNeeds: idemchaos list's line for a user's
// service names what runs with no help, with proxies and declared TTLs, and
// with the failpoint protocol, and leaves no scenario out: those that need
// the replicated stores idemchaos starts itself, and only those, are
// built-in only.
func TestOwnServiceLineSaysWhatEachNeeds(t *testing.T) {
	line := ownService()
	help := strings.Index(line, "with store proxies")
	protocol := strings.Index(line, "with the failpoint protocol (--failpoints")
	builtin := strings.Index(line, "; built-in strategies only")
	if !strings.HasPrefix(line, "runs concurrent-duplicates") || help < 0 || protocol < help || builtin >= 0 && builtin < protocol {
		t.Fatalf("line %q", line)
	}
	for _, sc := range scenarios.Catalog() {
		name := sc.Name
		at := strings.Index(line, " "+name) // not inside another name (dynamodb-fault-after-commit)
		switch {
		case at < 0:
			t.Errorf("%s missing from %q", name, line)
		case sc.BuiltinOnly():
			if builtin < 0 || at < builtin {
				t.Errorf("%s not listed as built-in only", name)
			}
		case builtin >= 0 && at > builtin:
			t.Errorf("%s listed as built-in only", name)
		case name == "db-fault-after-commit":
			if both := strings.Index(line, "with both, a Postgres proxy and the failpoint protocol"); both < protocol || at < both {
				t.Errorf("%s not listed as needing both a proxy and the failpoint protocol", name)
			}
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

// TestCatalogDoc: docs/catalog.md is what the code says (the strategies,
// scenarios, anomalies and profiles); regenerate it with the command it
// names.
func TestCatalogDoc(t *testing.T) {
	var b strings.Builder
	if err := WriteCatalogMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "docs", "catalog.md")
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("%s differs from what the code says; regenerate it: %s", path, CatalogCommand)
	}
	for _, s := range design.Names() {
		if !strings.Contains(b.String(), "| `"+s+"` |") {
			t.Errorf("the catalog lacks strategy %s", s)
		}
	}
}
