package clientmode_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

// services are the package's one Postgres (and Redis, unused); each run
// makes a database of its own.
var services *provision.Services

func TestMain(m *testing.M) { os.Exit(provisiontest.Main(m, &services)) }

// fetchClient is the command line of the example client, with args: Node
// is required (a missing Node fails the test, as any missing service).
func fetchClient(t *testing.T, args ...string) []string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("the client tests need Node (apt-get install nodejs): %v", err)
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "examples", "clients", "fetch-client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{node, script}, args...)
}
