// Package deploy checks idemchaos's deployment files (Dockerfile,
// docker-compose, deploy/, examples/github-actions/, action.yml) on a
// machine that has none of the engines they run on: no container engine,
// no cluster, no GitHub runner. The files are parsed strictly (the
// Kubernetes manifests into k8s.io/api's types, as `kubectl apply
// --validate=strict` would), their shell steps run against a stand-in
// idemchaos, and every idemchaos command line in them, and every one the
// README and docs/ show, is handed to the real binary, built from this
// checkout.
//
// It holds tests only, in a module of its own, so that k8s.io/api stays
// out of the library's go.mod.
package deploy

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

// The exit codes idemchaos documents (docs/runs.md: exit codes).
const (
	exitPass         = 0
	exitViolated     = 1
	exitUsage        = 2
	exitEnv          = 3
	exitInconclusive = 4
	exitInterrupted  = 130
)

// binary is the idemchaos CLI built from this checkout.
var binary string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "idemchaos-deploy-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin, err := provisiontest.Build(dir, "github.com/idemchaos/idemchaos/cmd/idemchaos") // or the suite's (make test's)
	if err != nil {
		fmt.Fprintln(os.Stderr, "build idemchaos:", err)
		return 1
	}
	binary = filepath.Join(bin, "idemchaos")
	return m.Run()
}
