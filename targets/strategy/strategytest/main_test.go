package strategytest

import (
	"os"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

// services are the real Redis, Postgres and MariaDB (for the strategies on
// InnoDB) the project's provisioning started for the table; a missing one
// fails the run, never skips it.
var services *provision.Services

func TestMain(m *testing.M) {
	redis.SetLogger(&logging.VoidLogger{}) // a broken store link makes go-redis log every failed dial
	os.Exit(provisiontest.Main(m, &services, provisiontest.WithMySQL))
}
