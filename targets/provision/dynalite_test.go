package provision

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestDynaliteMissingSaysWhichPackage: without the npm package installed
// where it is looked for, the start fails at once with one line that names
// the package and how to install it, and leaves no data dir behind.
func TestDynaliteMissingSaysWhichPackage(t *testing.T) {
	base, dir := t.TempDir(), t.TempDir()
	_, err := StartDynalite(context.Background(), DynaliteConfig{Dir: dir, TempDir: base})
	var u *UnavailableError
	if !errors.As(err, &u) {
		t.Fatalf("start without the package: %v; want an *UnavailableError", err)
	}
	msg := err.Error()
	for _, want := range []string{"npm package dynalite", "npm ci in " + dir} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("%q is more than one line", msg)
	}
	if left, err := os.ReadDir(base); err != nil || len(left) > 0 {
		t.Errorf("a failed start left %v in %s (%v)", left, base, err)
	}
}
