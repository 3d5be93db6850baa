package scenariotest

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
)

// prepare readies out, when given, for the run of planned scenarios: an
// earlier run saved there is replaced; any other directory that is not
// empty is refused.
func prepare(out string, planned int) error {
	if out == "" {
		return nil
	}
	if rundir.Marked(out) {
		if err := os.RemoveAll(out); err != nil {
			return fmt.Errorf("scenariotest: Target.Out: %w", err)
		}
	}
	if err := rundir.Prepare(out, planned); err != nil {
		return fmt.Errorf("scenariotest: Target.Out %w", err)
	}
	return nil
}

// save writes, when out is given, the run's document (results.json) and
// its HTML report beside the scenarios' files, as idemchaos run --out
// does: idemchaos check and report read the directory.
func save(out string, o outcome, started time.Time) error {
	if out == "" {
		return nil
	}
	doc := results.NewDocument(o.results, o.lat, "go test", started)
	doc.Skipped = o.skipped
	if err := rundir.WriteDocument(out, doc); err != nil {
		return fmt.Errorf("scenariotest: Target.Out: %w", err)
	}
	err := rundir.WriteAtomic(filepath.Join(out, rundir.ReportFile), func(w io.Writer) error { return reports.WriteHTML(w, doc) })
	if err != nil {
		return fmt.Errorf("scenariotest: Target.Out: %w", err)
	}
	return nil
}

// latencies gathers the latencies of the finished scenarios, for the
// report.
type latencies struct{ *results.Latencies }

func (latencies) Start(scenarios.Cell) {}

func (l latencies) Finish(r scenarios.Result, rec scenarios.Record) {
	l.Add(r.Strategy, rec.Obs.History.Attempts)
}
