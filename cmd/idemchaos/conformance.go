package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/conformance"
	"github.com/idemchaos/idemchaos/engine/conform"
	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/api"
)

// conformanceFlags are the flags of idemchaos conformance.
type conformanceFlags struct {
	common
	tableFlags
	targets, scens, profiles string
}

// tableFlags are the flags the two conformance tables share: where the
// repository is and its rows are built, the seeds, the rows at once, and
// the table's outputs.
type tableFlags struct {
	source, work               string
	md, verdicts, golden, from string
	first                      uint64
	seeds, parallel            int
}

// tableNames are what a table's flags name: a row, and the files its
// table and verdicts are committed as.
type tableNames struct {
	row, md, verdicts string
	seeds             int
}

func (f *tableFlags) register(fs *flag.FlagSet, n tableNames) {
	fs.StringVar(&f.source, "source", ".", "the idemchaos repository, where conformance/ and cmd/paymentd are")
	fs.StringVar(&f.work, "work", "", "where the "+n.row+"s are built (default: a temporary directory)")
	fs.Uint64Var(&f.first, "seed", 1, "first seed")
	fs.IntVar(&f.seeds, "seeds", n.seeds, "seeds per "+n.row+": seed, seed+1, ...")
	fs.IntVar(&f.parallel, "parallel", 2, n.row+"s run at once (1 to 4)")
	fs.StringVar(&f.md, "md", "", "write the table and its findings as Markdown to FILE ("+n.md+")")
	fs.StringVar(&f.verdicts, "verdicts", "", "write the verdicts, one line per "+n.row+", to FILE ("+n.verdicts+")")
	fs.StringVar(&f.from, "from", "", "render a saved run directory (its --out) again instead of running: after the findings changed")
	fs.StringVar(&f.golden, "golden", "", "compare the verdicts with this golden file: exit 1 with the difference if a verdict changed")
}

func cmdConformance(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	var f conformanceFlags
	f.common.register(fs)
	f.common.term.register(fs)
	fs.StringVar(&f.targets, "targets", "", "comma-separated conformance targets (default: all)")
	fs.StringVar(&f.scens, "scenarios", "", "comma-separated scenarios (default: all that can run)")
	fs.StringVar(&f.profiles, "profiles", "", "comma-separated profiles (default: ietf,stripe)")
	f.tableFlags.register(fs, tableNames{row: "target", md: "CONFORMANCE.md", verdicts: "conformance/verdicts.golden", seeds: 3})
	if err := parse(fs, args); err != nil {
		return err
	}
	plan, err := f.plan()
	if err != nil {
		return err
	}
	if f.from != "" {
		return f.rerender(plan, args, stdout, stderr)
	}
	if err := prepareOut(f.out, 0); err != nil { // the cells are known once the targets run
		return err
	}
	work := f.work
	if work == "" {
		if work, err = os.MkdirTemp("", "idemchaos-conformance-*"); err != nil {
			return envError(err)
		}
		defer os.RemoveAll(work)
	}
	s, err := open(ctx, f.common, 0, stderr)
	if err != nil {
		return err
	}
	defer s.Close()
	started := time.Now()
	prog := newProgress(stderr, 0, f.common.quiet)
	plan.Watch, plan.Out = prog, f.out
	if f.golden != "" {
		if plan.Again, err = pinnedVerdicts(f.golden); err != nil {
			return usageErrorf("--golden: %v", err)
		}
	}
	src, err := filepath.Abs(f.source)
	if err != nil {
		return usageErrorf("--source: %v", err)
	}
	out, err := conform.Run(ctx, conform.Env{Session: s, Builds: &conform.Builds{Source: src, Work: work, Log: stderr}}, plan)
	prog.done()
	if err != nil {
		return envError(err)
	}
	took := time.Since(started)
	fmt.Fprintf(stderr, "conformance took %s\n", took.Round(time.Millisecond))
	doc := results.NewDocument(out.Results, prog.lat, "conformance", started)
	doc.Skipped = out.Skipped
	if err := saveDocument(f.out, doc); err != nil {
		return err
	}
	announceOut(stderr, f.out)
	return f.finish(plan, doc, args, took, stdout, stderr)
}

// finish writes the run's table, findings and verdicts and judges them.
func (f *conformanceFlags) finish(plan conform.Plan, doc results.Document, args []string, took time.Duration, stdout, stderr io.Writer) error {
	table := conformance.NewTable(plan.RowSpecs(), plan.Scenarios, len(plan.Seeds), doc.Results, doc.Skipped)
	if err := f.write(doc, table, args, took); err != nil {
		return err
	}
	view, err := f.common.view(stdout)
	if err != nil {
		return err
	}
	if err := reports.WriteTable(stdout, doc.Results, view); err != nil {
		return err
	}
	return f.verdict(table, stderr)
}

// rerender renders the saved run of --from again, with the flags' rows,
// scenarios and seed count.
func (f *conformanceFlags) rerender(plan conform.Plan, args []string, stdout, stderr io.Writer) error {
	doc, err := rundir.ReadDocument(f.from)
	if err != nil {
		return usageErrorf("--from %v", err)
	}
	f.out = ""
	return f.finish(plan, doc, args, time.Duration(doc.DurationMS)*time.Millisecond, stdout, stderr)
}

// write saves what the run made: the run directory's document, its JSON,
// JUnit and HTML reports, the Markdown and the verdicts.
func (f *conformanceFlags) write(doc results.Document, table conformance.Table, args []string, took time.Duration) error {
	files := map[string]func(io.Writer) error{}
	if f.out != "" {
		files[filepath.Join(f.out, "conformance.json")] = func(w io.Writer) error { return results.WriteJSON(w, doc) }
		files[filepath.Join(f.out, "junit.xml")] = func(w io.Writer) error { return reports.WriteJUnit(w, doc) }
		files[filepath.Join(f.out, "report.html")] = func(w io.Writer) error { return reports.WriteHTML(w, doc) }
		files[filepath.Join(f.out, "CONFORMANCE.md")] = func(w io.Writer) error { return f.markdown(w, table, args, took) }
	}
	if f.md != "" {
		files[f.md] = func(w io.Writer) error { return f.markdown(w, table, args, took) }
	}
	if f.verdicts != "" {
		files[f.verdicts] = func(w io.Writer) error { return conformance.WriteVerdicts(w, table.Verdicts()) }
	}
	for path, write := range files {
		if err := writeFileOrStdout(path, nil, write); err != nil {
			return envError(err)
		}
	}
	return nil
}

func (f *conformanceFlags) markdown(w io.Writer, table conformance.Table, args []string, took time.Duration) error {
	return reports.WriteConformance(w, table, reports.ConformanceMeta{Command: commandLine(args), Took: took})
}

// commandLine is the command that made the document, without the paths
// that only name where its outputs went.
func commandLine(args []string) string {
	var keep []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--out", "--md", "--verdicts", "--golden", "--work", "--source", "--from", "-out", "-md", "-verdicts", "-golden", "-work", "-source", "-from":
			i++
			continue
		case "--quiet", "-quiet":
			continue
		}
		keep = append(keep, args[i])
	}
	return strings.TrimSpace("idemchaos conformance " + strings.Join(keep, " "))
}

// verdict: 1 when a finding is unexplained or a verdict differs from the
// golden file, else 0.
func (f *conformanceFlags) verdict(table conformance.Table, stderr io.Writer) error {
	code := exitPass
	for _, u := range table.Unexplained() {
		fmt.Fprintf(stderr, "unexplained: %s (nothing in package conformance explains it: conformance/findings.go)\n", u)
		code = exitViolated
	}
	if f.golden != "" {
		diff, err := conformance.CompareGolden(f.golden, table.Verdicts())
		if err != nil {
			return usageErrorf("--golden: %v", err)
		}
		if len(diff) > 0 {
			fmt.Fprintf(stderr, "verdicts changed from %s:\n%s\n", f.golden, strings.Join(diff, "\n"))
			code = exitViolated
		}
	}
	return verdictExit(code)
}

// pinnedVerdicts says which cells the golden file at path pins with a
// verdict, not as inconclusive: a run of one that proved nothing runs
// again before the verdicts are compared.
func pinnedVerdicts(path string) (func(row, scenario string) bool, error) {
	vs, err := conformance.ReadVerdictsFile(path)
	if err != nil {
		return nil, err
	}
	pinned := map[[2]string]bool{}
	for _, v := range vs {
		pinned[[2]string{v.Row, v.Scenario}] = v.Class != conformance.Inconclusive
	}
	return func(row, scenario string) bool { return pinned[[2]string{row, scenario}] }, nil
}

// plan reads the flags into the run's plan.
func (f *conformanceFlags) plan() (conform.Plan, error) {
	var p conform.Plan
	names, err := splitList("targets", f.targets, conformance.Names())
	if err != nil {
		return p, err
	}
	targets, err := conformance.Lookup(names)
	if err != nil {
		return p, usageErrorf("%v", err)
	}
	// the libraries run as a user's service: the scenarios on idemchaos's
	// own replicated stores are not theirs to run
	if p.Scenarios, err = splitList("scenarios", f.scens, scenarios.ServiceNames()); err != nil {
		return p, err
	}
	profNames, err := splitList("profiles", f.profiles, []string{api.IETF.Name, api.Stripe.Name})
	if err != nil {
		return p, err
	}
	if p.Seeds, err = seedList(f.first, f.seeds); err != nil {
		return p, err
	}
	if f.parallel < 1 || f.parallel > 4 {
		return p, usageErrorf("--parallel %d: want 1 to 4", f.parallel)
	}
	p.Parallel = f.parallel
	for _, t := range targets {
		for _, n := range profNames {
			prof, err := api.ProfileByName(n)
			if err != nil {
				return p, usageErrorf("--profiles: %v", err)
			}
			p.Rows = append(p.Rows, conform.Row{Target: t, Profile: prof})
		}
	}
	return p, nil
}
