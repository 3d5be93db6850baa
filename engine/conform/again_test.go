package conform

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// strayRows is an executor whose runs each find the ledger holding rows
// before them (a run that proves nothing) until it has run the given
// number of times.
type strayRows struct {
	runs, stray int
}

func (s *strayRows) Execute(_ context.Context, c scenarios.Cell, plan workload.Plan) (scenarios.Record, error) {
	s.runs++
	rec := scenarios.Record{Cell: c, Plan: plan}
	if s.runs <= s.stray {
		rec.Obs.Ledger.RowsAtStart = 3
	}
	return rec, nil
}

// TestAgainRunsAnUnprovedCellOnce: a cell whose run proved nothing runs
// once more when the plan asks for it, its saved run replaced and its
// result saying why it ran twice; one the plan does not ask for, or one
// that proved something, runs once.
func TestAgainRunsAnUnprovedCellOnce(t *testing.T) {
	cell := scenarios.Cell{Strategy: "pg-tx", Scenario: "missing-key", Seed: 4, Profile: api.IETF}
	for _, tc := range []struct {
		name      string
		asked     bool
		stray     int
		wantRuns  int
		wantAgain bool
	}{
		{"asked and unproved", true, 1, 2, true},
		{"not asked", false, 1, 1, false},
		{"asked, proved", true, 0, 1, false},
		{"asked, unproved twice", true, 2, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			ex := &strayRows{stray: tc.stray}
			p := Plan{Out: out, Again: func(row, scenario string) bool {
				return tc.asked && row == cell.Strategy && scenario == cell.Scenario
			}}
			first, _, err := engine.Run(context.Background(), ex, cell, out)
			if err != nil {
				t.Fatal(err)
			}
			stale := filepath.Join(rundir.CellDir(out, cell), "stale")
			if err := os.WriteFile(stale, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			res := []scenarios.Result{first}
			if err := again(context.Background(), ex, p, []scenarios.Cell{cell}, res, nil); err != nil {
				t.Fatal(err)
			}
			noted := len(res[0].Adapted) > 0 && strings.Contains(res[0].Adapted[len(res[0].Adapted)-1], "seed 4 ran a second time: its first run proved nothing (the ledger held 3")
			if ex.runs != tc.wantRuns || noted != tc.wantAgain {
				t.Errorf("%d runs, noted %v (%q); want %d runs, noted %v", ex.runs, noted, res[0].Adapted, tc.wantRuns, tc.wantAgain)
			}
			if _, err := os.Stat(stale); tc.wantAgain != os.IsNotExist(err) {
				t.Errorf("the first run's files kept %v; want them replaced only when it ran again", err == nil)
			}
			if _, saved, err := rundir.ReadRecord(rundir.CellDir(out, cell)); err != nil || saved.Verdict != res[0].Verdict {
				t.Errorf("saved %s, %v; want the result that stands, %s", saved.Verdict, err, res[0].Verdict)
			}
		})
	}
}
