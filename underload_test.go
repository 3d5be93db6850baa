package idemchaos

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestUnderLoadStopsItsLoad: scripts/under-load (make test-stress's and
// make matrix-stress's load) runs its command beside the load, exits with
// the command's status, and leaves no busy loop behind. The limit is an
// odd one, so the load's own command line names it.
func TestUnderLoadStopsItsLoad(t *testing.T) {
	const limit = "1237s"
	cmd := exec.Command("scripts/under-load", "under-load-test", "1", limit, "sh", "-c", "echo ran; exit 3")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("under-load: %v; want the command's exit 3\n%s", err, out)
	}
	for _, want := range []string{"ran\n", "under-load-test: load average", "at the end; exit 3"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("under-load's output lacks %q:\n%s", want, out)
		}
	}
	if left, err := exec.Command("pgrep", "-f", limit).Output(); err == nil {
		t.Errorf("the load is still running after under-load returned: pids %s", strings.Fields(string(left)))
	}
	usage, err := exec.Command("scripts/under-load", "x").CombinedOutput()
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.HasPrefix(string(usage), "usage: scripts/under-load") {
		t.Errorf("under-load with too few arguments: %v %q; want exit 2 and its usage", err, usage)
	}
}
