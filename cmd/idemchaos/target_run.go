package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/explore"
	"github.com/idemchaos/idemchaos/targets/api"
)

// runTarget runs the given scenarios against a user's service, one after
// another (store faults are shared by every request of the service). Those
// that need the service's internals are skipped and said so.
func runTarget(ctx context.Context, c common, t targetFlags, cells []scenarios.Cell, cmd string, view reports.View,
	stdout, stderr io.Writer) error {
	e, op, err := t.external()
	if err != nil {
		return err
	}
	tellShape(c.log(stderr), op, e.Shape)
	for i := range cells {
		cells[i].Target, cells[i].Strategy = &e, e.Name
	}
	var xs engine.ExploreSpec
	explores := false
	if cmd == "run" { // a matrix refuses a file that explores
		xs, explores = cellExplore(cells[0])
	}
	if explores && !e.Failpoints {
		return usageErrorf("scenario file %s asks for an exploration, which holds your service's requests at its failpoints: give --failpoints (docs/failpoints.md)",
			cells[0].Custom.File)
	}
	runnable, skipped := engine.SplitSkipped(cells)
	switch {
	case len(runnable) == 0 && len(skipped) == 1:
		return usageErrorf("scenario %s cannot run against %s: it %s", skipped[0].Scenario, e.Name, skipped[0].Reason)
	case len(runnable) == 0:
		return usageErrorf("nothing to run against %s: every scenario asked for needs the service's internals", e.Name)
	}
	tellSkipped(stderr, view, skipped)
	all := runnable
	shard, runnable := shardCells(c.shard, runnable, stderr)
	if c.dryRun {
		if err := dryRun(stdout, cmd, all, runnable, shard, len(skipped)); err != nil || !explores {
			return err
		}
		return tellExplore(stdout, cells[0])
	}
	if err := prepareOut(c.out, len(runnable)); err != nil {
		return err
	}
	if len(runnable) == 0 {
		return emptyShard(c, stdout, stderr, shard, cmd, skipped)
	}
	svc, err := openService(ctx, t, e, c.log(stderr))
	if err != nil {
		return err
	}
	defer svc.Close()
	started := time.Now()
	prog := newProgress(stderr, len(runnable), c.quiet || cmd == "run")
	out, err := engine.RunService(ctx, svc, runnable, engine.ServiceBatch{Out: c.out, Log: stderr, Watch: prog,
		Moved: func(late []results.Skip, left int) {
			tellSkipped(stderr, view, late)
			prog.setTotal(left)
		}})
	prog.done()
	var bad *engine.BadInputError
	switch {
	case errors.As(err, &bad):
		return usageErrorf("%v", err)
	case err != nil:
		return envError(err)
	}
	rs := out.Results
	if err := noCellRan(rs); err != nil {
		return envError(err)
	}
	skipped = append(skipped, out.Skipped...)
	noteUndocumented(stderr, op, prog.statuses)
	var explored []explore.Result
	if explores {
		if explored, err = svc.Explore(ctx, xs); err != nil {
			return envError(err)
		}
		for i := range explored {
			explored[i].Args = e.Args()
		}
	}
	doc := results.NewDocument(rs, prog.lat, cmd, started)
	doc.Skipped, doc.Shard, doc.Explorations = skipped, shard, explored
	if err := writeOutput(c, stdout, doc, func(w io.Writer) error {
		if len(rs) == 1 && shard == nil {
			return writeRun(w, rs[0], explored, view)
		}
		if err := reports.WriteTable(w, rs, view); err != nil {
			return err
		}
		return shardSummary(w, shard, len(rs))
	}); err != nil {
		return err
	}
	announceRun(stderr, c.out, explored)
	return verdictExit(worseExit(targetExit(rs), exploreExit(explored)))
}

// noCellRan is the first cell's error when no cell could run at all (a
// service that is down, or that never answers): the run is then an
// environment error, told in one line, as one cell's would be. Some cells
// that ran are judged, those that could not run among them.
func noCellRan(rs []scenarios.Result) error {
	for _, r := range rs {
		if r.Error == "" {
			return nil
		}
	}
	if len(rs) == 0 {
		return nil
	}
	return errors.New(rs[0].Error)
}

// tellSkipped says, wrapped at the view's width, which scenarios cannot
// run and why.
func tellSkipped(w io.Writer, view reports.View, skipped []results.Skip) {
	for _, s := range skipped {
		fmt.Fprint(w, reports.Wrap("skipped "+s.Scenario+": ", "  ", s.Reason, view.Width))
	}
}

// targetExit: a user's service must pass everything. The worst cell
// decides: 1 on any failure, else 3 if a cell could not run (the
// environment), else 4 if any run was inconclusive.
func targetExit(rs []scenarios.Result) int {
	code := exitPass
	for _, r := range rs {
		switch {
		case r.Verdict == scenarios.Fail:
			return exitViolated
		case r.Error != "":
			code = exitEnv
		case r.Verdict == scenarios.Inconclusive && code != exitEnv:
			code = exitInconclusive
		}
	}
	return code
}

// matrixTarget runs every asked scenario and seed against a user's service.
func matrixTarget(ctx context.Context, c common, t targetFlags, sts string, cells []scenarios.Cell, view reports.View,
	stdout, stderr io.Writer) error {
	if sts != "" {
		return usageErrorf("--strategies and --target-url: give one (built-in strategies, or your own service)")
	}
	return runTarget(ctx, c, t, cells, "matrix", view, stdout, stderr)
}

// openService readies the user's service and its ledger; a target or
// ledger query that does not fit is bad input, the rest environment.
func openService(ctx context.Context, t targetFlags, e scenarios.External, log io.Writer) (*engine.Service, error) {
	svc, err := engine.OpenService(ctx, e, t.ledgerURL)
	var bad *engine.BadInputError
	switch {
	case errors.As(err, &bad):
		return nil, usageErrorf("%v", err)
	case err != nil:
		return nil, envError(err)
	}
	info := svc.Ledger()
	fmt.Fprintf(log, "target: %s at %s; ledger rows name charges: %v, attempts: %v\n", e.Name, strings.Join(e.URLs, ", "),
		info.ChargeIDs, info.AttemptIDs)
	if hint := ledgerHint(info); hint != "" {
		fmt.Fprintln(log, "hint: "+hint)
	}
	return svc, nil
}

// ledgerHint says what the ledger query would gain from the optional
// columns it lacks ("" when it has both).
func ledgerHint(info engine.LedgerInfo) string {
	var cols, gains []string
	if !info.ChargeIDs {
		cols, gains = append(cols, "id (the charge id your success answers carry)"), append(gains, "acks matched row for row")
	}
	if !info.AttemptIDs {
		cols = append(cols, "attempt_id (the "+api.HeaderAttempt+" header of the request that charged)")
		gains = append(gains, "timeouts resolved exactly and evidence naming the attempt that charged")
	}
	if len(cols) == 0 {
		return ""
	}
	return "add " + strings.Join(cols, " and ") + " to --ledger-query: " + strings.Join(gains, ", ")
}
