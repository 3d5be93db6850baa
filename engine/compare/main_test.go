package compare

import (
	"os"
	"testing"

	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

// services holds the real Redis, Postgres and MariaDB the project's
// provisioning started for this package; a missing server fails the run,
// never skips it.
var services *provision.Services

func TestMain(m *testing.M) { os.Exit(provisiontest.Main(m, &services, provisiontest.WithMySQL)) }
