package narrate

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/targets/provision"
)

func TestZZLive(t *testing.T) {
	ctx := context.Background()
	s, err := provision.Start(ctx, provision.Config{NoDocker: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dsn, _ := s.CreateDatabase(ctx, "dump")
	defer s.DropDatabase(ctx, dsn)
	toxi, _ := fault.Embedded()
	defer toxi.Close()
	r, err := scenarios.NewRunner(ctx, scenarios.Env{PostgresDSN: dsn, RedisURL: s.RedisURL, Toxiproxy: toxi})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, c := range strings.Split(os.Getenv("CELLS"), " ") {
		st, sc, _ := strings.Cut(c, "/")
		cell, plan, err := scenarios.Prepare(scenarios.Cell{Strategy: st, Scenario: sc, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		rec, err := r.Execute(ctx, cell, plan)
		if err != nil {
			t.Fatal(err)
		}
		n := Story(rec, scenarios.Judge(rec))
		fmt.Printf("===== %s\n%s%s\n--\n%s\n\n", n.Title, n.Text(), n.Mermaid, strings.Join(n.Timings, "\n"))
	}
}
