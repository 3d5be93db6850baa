package shrink_test

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

var services *provision.Services

func TestMain(m *testing.M) { os.Exit(provisiontest.Main(m, &services)) }

// newRunner is a session on the shared stores with one built-in runner.
func newRunner(t *testing.T) engine.Executor {
	t.Helper()
	s, err := engine.Open(context.Background(), provision.Config{RedisURL: services.RedisURL, PostgresURL: services.PostgresURL}, 1, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.Builtins[0]
}
