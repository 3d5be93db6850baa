package compare

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindTool: a tool off PATH is found in the directories given; a
// missing one is an error that says how to install it.
func TestFindTool(t *testing.T) {
	dir := t.TempDir()
	tool := filepath.Join(dir, "idemchaos-test-tool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := FindTool("idemchaos-test-tool", []string{t.TempDir(), dir}); err != nil || got != tool {
		t.Errorf("FindTool = %q, %v; want %s", got, err, tool)
	}
	if _, err := FindTool("idemchaos-test-tool", nil); err == nil {
		t.Error("found a tool that is on no path given")
	}
	t.Setenv("PATH", t.TempDir())
	_, err := FindTool("wrk", []string{dir})
	if err == nil || !strings.Contains(err.Error(), "apt-get install wrk") {
		t.Errorf("a missing wrk: %v", err)
	}
}
