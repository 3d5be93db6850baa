package innodb_test

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/targets/strategy"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
	"github.com/idemchaos/idemchaos/targets/strategy/innodb"
)

// TestDesignsRegister: each design is in the catalog once the package is
// linked, with its definition and a builder that needs the InnoDB pool;
// the correct one declares no catch (innodb-get-lock, flawed, is caught by
// no scenario of the catalog: its tests show its stuck key).
func TestDesignsRegister(t *testing.T) {
	for _, info := range []design.Info{innodb.Tx, innodb.BlockingClaim, innodb.InsertIgnore, innodb.GetLock, innodb.SelectForUpdate} {
		got, err := design.Lookup(info.Name)
		if err != nil || got.Mechanism != info.Mechanism || !got.MySQL {
			t.Fatalf("%s in the catalog: %+v, %v", info.Name, got, err)
		}
		if (info.Flaw == "") != (len(info.Fails) == 0) && info.Name != innodb.GetLock.Name {
			t.Fatalf("%s: flaw %q but declares %v", info.Name, info.Flaw, info.Fails)
		}
		if _, err := strategy.New(info.Name, strategy.Deps{}); err == nil || !strings.Contains(err.Error(), "InnoDB pool") {
			t.Errorf("%s built without an InnoDB pool: %v", info.Name, err)
		}
		if _, err := strategy.New(info.Name, strategy.Deps{MySQL: &sql.DB{}}); err != nil {
			t.Errorf("%s on an InnoDB pool, no Postgres: %v", info.Name, err)
		}
	}
}
