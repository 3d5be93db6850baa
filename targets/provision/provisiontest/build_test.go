package provisiontest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildOnceForTheSuite: with IDEMCHAOS_TEST_BIN set, Build builds
// nothing and hands that directory, provided it holds every binary asked
// for; without it, Build builds them into the test's directory.
func TestBuildOnceForTheSuite(t *testing.T) {
	suite := t.TempDir()
	for _, name := range []string{"provisiontest", "paymentd"} {
		if err := os.WriteFile(filepath.Join(suite, name), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("IDEMCHAOS_TEST_BIN", suite)
	own := t.TempDir()
	if dir, err := Build(own, ".", "github.com/idemchaos/idemchaos/cmd/paymentd"); err != nil || dir != suite {
		t.Errorf("Build with the suite's binaries = %q, %v; want %q", dir, err, suite)
	}
	if entries, _ := os.ReadDir(own); len(entries) != 0 {
		t.Errorf("Build built %v although the suite had built them", entries)
	}
	_, err := Build(own, "../../../cmd/paysvc")
	if err == nil || !strings.Contains(err.Error(), "IDEMCHAOS_TEST_BIN="+suite+" lacks") || !strings.Contains(err.Error(), "paysvc") {
		t.Errorf("Build of a binary the suite lacks: %v; want the missing one named", err)
	}

	t.Setenv("IDEMCHAOS_TEST_BIN", "")
	dir, err := Build(own, "../../../cmd/paysvc")
	if err != nil || dir != own {
		t.Fatalf("Build without the suite's binaries = %q, %v; want %q", dir, err, own)
	}
	if out, err := exec.Command(filepath.Join(own, "paysvc"), "-h").CombinedOutput(); !strings.Contains(string(out), "-mistake") {
		t.Errorf("the built paysvc -h: %v\n%s", err, out)
	}
}
