package narrate

import (
	"testing"

	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// TestInnoDBStepsAreTold: every step of the InnoDB designs has its
// sentence and its message to the SQL store, which a strategy on InnoDB
// names InnoDB (the diagram's PG participant), not Postgres.
func TestInnoDBStepsAreTold(t *testing.T) {
	for _, s := range []design.Step{design.InnoDBRead, design.InnoDBInsertNoWait, design.InnoDBInsert, design.InnoDBInsertIgnore,
		design.InnoDBLockingRead, design.InnoDBSessionLock, design.InnoDBStore} {
		if w := stepWords[s]; w.text == "" || w.store != postgresID || w.verb == "" {
			t.Errorf("step %s: %+v", s, w)
		}
	}
	if got := sqlName(design.Info{MySQL: true}); got != "InnoDB" {
		t.Errorf("a strategy on InnoDB talks to %q", got)
	}
	if got := sqlName(design.Info{}); got != "Postgres" {
		t.Errorf("a strategy on Postgres talks to %q", got)
	}
}
