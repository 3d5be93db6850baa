package innodb_test

import (
	"testing"

	"github.com/idemchaos/idemchaos/targets/strategy"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
	"github.com/idemchaos/idemchaos/targets/strategy/innodb"
)

// TestDesignsRegister: each design registers with its builder in one
// call, as the slice that deploys them will do, and is then in the
// catalog; the flawed ones declare where they are caught, the correct one
// nowhere.
func TestDesignsRegister(t *testing.T) {
	for _, d := range []struct {
		info  design.Info
		build strategy.Builder
	}{
		{innodb.Tx, innodb.NewTx},
		{innodb.BlockingClaim, innodb.NewBlockingClaim},
		{innodb.InsertIgnore, innodb.NewInsertIgnore},
		{innodb.GetLock, innodb.NewGetLock},
		{innodb.SelectForUpdate, innodb.NewSelectForUpdate},
	} {
		if _, err := design.Lookup(d.info.Name); err == nil {
			t.Fatalf("%s is in the catalog already: the engine would deploy it", d.info.Name)
		}
		strategy.Register(d.info, d.build)
		got, err := design.Lookup(d.info.Name)
		if err != nil || got.Mechanism != d.info.Mechanism {
			t.Fatalf("%s after Register: %+v, %v", d.info.Name, got, err)
		}
		if (d.info.Flaw == "") != (len(d.info.Fails) == 0) {
			t.Fatalf("%s: flaw %q but declares %v", d.info.Name, d.info.Flaw, d.info.Fails)
		}
	}
}
