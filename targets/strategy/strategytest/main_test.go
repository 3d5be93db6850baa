package strategytest

import (
	"os"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

var services *provision.Services

func TestMain(m *testing.M) {
	redis.SetLogger(&logging.VoidLogger{}) // a broken store link makes go-redis log every failed dial
	os.Exit(provisiontest.Main(m, &services))
}
