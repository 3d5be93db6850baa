package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/conformance"
	"github.com/idemchaos/idemchaos/engine/conform"
	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
)

// clientConformanceFlags are the flags of idemchaos conformance --clients.
type clientConformanceFlags struct {
	common
	tableFlags
	clients string
}

// isClientConformance reports whether the conformance command line asks
// for the client table.
func isClientConformance(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return a == "--clients" || a == "-clients" })
}

func cmdClientConformance(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	var f clientConformanceFlags
	f.registerStores(fs)
	f.term.register(fs)
	fs.Bool("clients", true, "the client table: SDKs and retry libraries (conformance/clients/), judged by client mode")
	fs.StringVar(&f.clients, "only", "", "comma-separated clients (default: all)")
	f.tableFlags.register(fs, tableNames{row: "client", md: "CLIENTS.md", verdicts: "conformance/clients.golden", seeds: 5})
	if err := parse(fs, args); err != nil {
		return err
	}
	plan, err := f.plan()
	if err != nil {
		return err
	}
	if f.from != "" {
		f.out = ""
		recs, err := rundir.ReadClientRuns(f.from)
		if err != nil {
			return usageErrorf("--from %v", err)
		}
		var took time.Duration
		if doc, err := rundir.ReadDocument(f.from); err == nil {
			took = time.Duration(doc.DurationMS) * time.Millisecond
		}
		return f.finish(conformance.NewClientTable(plan.Clients, len(plan.Seeds), recs), args, took, stdout, stderr)
	}
	if err := prepareOut(f.out, 0); err != nil {
		return err
	}
	recs, took, err := f.run(ctx, plan, stderr)
	if err != nil {
		return err
	}
	announceOut(stderr, f.out)
	return f.finish(conformance.NewClientTable(plan.Clients, len(plan.Seeds), recs), args, took, stdout, stderr)
}

// plan reads the flags into the run's plan.
func (f *clientConformanceFlags) plan() (conform.Clients, error) {
	var p conform.Clients
	names, err := splitList("only", f.clients, conformance.ClientNames())
	if err != nil {
		return p, err
	}
	if p.Clients, err = conformance.LookupClients(names); err != nil {
		return p, usageErrorf("%v", err)
	}
	if p.Seeds, err = seedList(f.first, f.seeds); err != nil {
		return p, err
	}
	if f.parallel < 1 || f.parallel > 4 {
		return p, usageErrorf("--parallel %d: want 1 to 4", f.parallel)
	}
	p.Parallel, p.Out, p.Environ = f.parallel, f.out, os.Environ()
	return p, nil
}

// run builds and runs the clients on stores it starts.
func (f *clientConformanceFlags) run(ctx context.Context, p conform.Clients, stderr io.Writer) ([]scenarios.ClientRecord, time.Duration, error) {
	work := f.work
	if work == "" {
		dir, err := os.MkdirTemp("", "idemchaos-clients-*")
		if err != nil {
			return nil, 0, envError(err)
		}
		defer os.RemoveAll(dir)
		work = dir
	}
	src, err := filepath.Abs(f.source)
	if err != nil {
		return nil, 0, usageErrorf("--source: %v", err)
	}
	services, err := startStores(ctx, f.common, stderr)
	if err != nil {
		return nil, 0, err
	}
	defer services.Close()
	log := f.log(stderr)
	started := time.Now()
	p.Log = log
	recs, err := conform.RunClients(ctx, services, &conform.Builds{Source: src, Work: work, Log: log}, p)
	if err != nil {
		return nil, 0, envError(err)
	}
	took := time.Since(started)
	fmt.Fprintf(stderr, "client conformance took %s\n", took.Round(time.Millisecond))
	return recs, took, nil
}

// finish writes the table and its verdicts, prints the results and judges
// them: 1 when an anomaly is unexplained, a row proved nothing or a
// verdict differs from the golden file.
func (f *clientConformanceFlags) finish(t conformance.ClientTable, args []string, took time.Duration, stdout, stderr io.Writer) error {
	files := map[string]func(io.Writer) error{}
	md := func(w io.Writer) error {
		return reports.WriteClientConformance(w, t, reports.ClientConformanceMeta{Command: commandLine(args), Took: took})
	}
	if f.md != "" {
		files[f.md] = md
	}
	if f.out != "" {
		files[filepath.Join(f.out, "CLIENTS.md")] = md
	}
	if f.verdicts != "" {
		files[f.verdicts] = func(w io.Writer) error { return conformance.WriteClientVerdicts(w, t.Verdicts()) }
	}
	for path, write := range files {
		if err := writeFileOrStdout(path, nil, write); err != nil {
			return envError(err)
		}
	}
	view, err := f.view(stdout)
	if err != nil {
		return err
	}
	var rs []scenarios.Result
	for _, r := range t.Rows {
		rs = append(rs, r.Results...)
	}
	doc := results.NewDocument(rs, results.NewLatencies(), "conformance", time.Now().Add(-took))
	if err := writeOutput(f.common, stdout, doc, func(w io.Writer) error { return reports.WriteTable(w, rs, view) }); err != nil {
		return err
	}
	return f.verdict(t, stderr)
}

func (f *clientConformanceFlags) verdict(t conformance.ClientTable, stderr io.Writer) error {
	code := exitPass
	for _, u := range t.Unexplained() {
		fmt.Fprintf(stderr, "unexplained: %s (nothing in package conformance explains it: conformance/client_findings.go)\n", u)
		code = exitViolated
	}
	if f.golden != "" {
		want, err := conformance.ReadVerdictsFile(f.golden)
		if err != nil {
			return usageErrorf("--golden: %v", err)
		}
		if diff := conformance.CompareClients(want, t.Verdicts()); len(diff) > 0 {
			fmt.Fprintf(stderr, "verdicts changed from %s:\n%s\n", f.golden, strings.Join(diff, "\n"))
			code = exitViolated
		}
	}
	return verdictExit(code)
}
