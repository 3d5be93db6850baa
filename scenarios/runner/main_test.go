package runner_test

import (
	"context"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	"github.com/idemchaos/idemchaos/scenarios/runner"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

var services *provision.Services

func TestMain(m *testing.M) {
	redis.SetLogger(&logging.VoidLogger{}) // cut store links make go-redis log every failed dial
	os.Exit(provisiontest.Main(m, &services))
}

// newRunner gives a test its own database, Toxiproxy and runner.
func newRunner(t *testing.T) *runner.Builtin {
	t.Helper()
	tp, err := fault.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tp.Close() })
	r, err := runner.NewBuiltin(context.Background(), runner.Env{
		PostgresDSN: provisiontest.Database(t, services), RedisURL: services.RedisURL, Toxiproxy: tp})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
