package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

var (
	services *provision.Services
	binary   string
)

// TestMain builds the CLI once (or takes the suite's, make test's) and
// shares one Redis and Postgres with the tests that pass them by URL.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "idemchaos-cli-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	bin, err := provisiontest.Build(dir, ".")
	if err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n", err)
		os.Exit(3)
	}
	binary = filepath.Join(bin, "idemchaos")
	code := provisiontest.Main(m, &services)
	os.RemoveAll(dir)
	os.Exit(code)
}

type outcome struct {
	code           int
	stdout, stderr string
}

// cli runs the built binary with the shared stores.
func cli(t *testing.T, args ...string) outcome {
	t.Helper()
	return cliEnv(t, storesEnv(), args...)
}

// storesEnv points the CLI at the shared stores.
func storesEnv() []string {
	return []string{"IDEMCHAOS_REDIS_URL=" + services.RedisURL, "IDEMCHAOS_POSTGRES_URL=" + services.PostgresURL}
}

func cliEnv(t testing.TB, env []string, args ...string) outcome {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	o := outcome{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		o.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o
}

// lastLine is the final line of s, trimmed.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
