package idemchaos

import (
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// plant is one change to a copy of the real graph.
type plant struct {
	name  string
	apply func(g *graph)
	rule  string   // the rule that must report it
	ends  []string // words the reported line must name
}

// plantedViolations has one plant per kind of violation the rules forbid.
var plantedViolations = []plant{
	{"target imports sim", edge("targets/ledger", "sim/history"),
		"targets-below-sim", []string{"targets/ledger", "sim/history"}},
	{"sim imports a target's internals", edge("sim/client", "targets/strategy"),
		"sim-sees-only-api", []string{"sim/client", "targets/strategy"}},
	{"checker imports the core", edge("scenarios/check", "scenarios"),
		"checker-reads-only-history", []string{"scenarios/check", "scenarios"}},
	{"renderer reaches pgx through the ledger", edge("reports", "targets/ledger"),
		"pure-without-io", []string{"reports", "github.com/jackc/pgx", "targets/ledger"}},
	{"a package imports a command", edge("results/rundir", "cmd/idemchaos"),
		"nothing-imports-cmd", []string{"results/rundir", "cmd/idemchaos"}},
	{"renderer imports the engine", edge("reports", "engine"),
		"only-entry-points-run", []string{"reports", "engine"}},
	{"a catalog package drives the engine", edge("scenarios/openapi", "engine"),
		"only-entry-points-run", []string{"scenarios/openapi", "engine"}},
	{"a record imports the go test API", edge("results/rundir", "scenariotest"),
		"results-below-engine-and-renderers", []string{"results/rundir", "scenariotest"}},
	{"a catalog imports the go test API", edge("scenarios", "scenariotest"),
		"test-support-only-in-tests", []string{"scenarios", "scenariotest"}},
	{"a record imports a renderer", edge("results/rundir", "reports"),
		"results-below-engine-and-renderers", []string{"results/rundir", "reports"}},
	{"a record imports the engine", edge("results", "engine/compare"),
		"results-below-engine-and-renderers", []string{"results", "engine/compare"}},
	{"the engine renders", edge("engine/compare", "reports"),
		"engine-renders-nothing", []string{"engine/compare", "reports"}},
	{"a catalog imports a renderer", edge("conformance", "reports"),
		"catalogs-below-engine-and-renderers", []string{"conformance", "reports"}},
	{"a catalog reads run directories", edge("scenarios", "results/rundir"),
		"catalogs-below-engine-and-renderers", []string{"scenarios", "results/rundir"}},
	{"env read outside cmd", envRead("targets/provision", "os.Getenv"),
		"only-cmd-reads-ambient", []string{"targets/provision", "os.Getenv"}},
	{"flag outside cmd", edge("scenarios", "flag"),
		"only-cmd-reads-ambient", []string{"scenarios", "flag"}},
	{"a command links test support", edge("cmd/paymentd", "targets/provision/provisiontest"),
		"test-support-only-in-tests", []string{"cmd/paymentd", "targets/provision/provisiontest"}},
	{"a rule names a vanished package", drop("results/rundir"),
		"pure-without-io", []string{"results/rundir"}},
	{"a rule's exception names a vanished package", drop("clienttest"),
		"only-cmd-reads-ambient", []string{"clienttest"}},
}

// plantedAllowed are edges and reads the rules permit: planting one must
// not add a violation.
var plantedAllowed = []plant{
	{name: "sim uses the contract", apply: edge("sim/load", "targets/api")},
	{name: "a renderer reads the contract", apply: edge("reports", "targets/api")},
	{name: "the go test API drives the engine", apply: edge("scenariotest", "engine")},
	{name: "the go test API of clients drives the engine", apply: edge("clienttest", "engine")},
	{name: "the go test API renders", apply: edge("clienttest", "reports")},
	{name: "a command drives the engine", apply: edge("cmd/paymentd", "engine")},
	{name: "the engine fills records", apply: edge("engine/shrink", "results")},
	{name: "a renderer reads a catalog", apply: edge("reports", "conformance")},
	{name: "the engine reads a catalog", apply: edge("engine/conform", "conformance")},
	{name: "a command reads the environment", apply: envRead("cmd/paymentd", "os.LookupEnv")},
	{name: "test support reads where the tests' stores are", apply: envRead("targets/provision/provisiontest", "os.Getenv")},
}

// edge plants an import from -> to (module-relative, or a standard
// library path such as "flag").
func edge(from, to string) func(*graph) {
	return func(g *graph) {
		target := to
		if to != "flag" {
			target = g.abs(to)
		}
		p := g.abs(from)
		g.imports[p] = append(g.imports[p], target)
	}
}

// envRead plants a read of the environment in pkg.
func envRead(pkg, what string) func(*graph) {
	return func(g *graph) {
		p := g.abs(pkg)
		g.ambient[p] = append(g.ambient[p], ambientUse{what: what, pos: pkg + "/planted.go:1"})
	}
}

// drop removes pkg from the graph, as a rename would.
func drop(pkg string) func(*graph) {
	return func(g *graph) {
		delete(g.imports, g.abs(pkg))
		delete(g.ambient, g.abs(pkg))
	}
}

// clone copies g deeply enough for a plant to change it.
func clone(g graph) graph {
	c := graph{module: g.module, imports: maps.Clone(g.imports), ambient: maps.Clone(g.ambient)}
	for p, imps := range c.imports {
		c.imports[p] = slices.Clone(imps)
	}
	for p, uses := range c.ambient {
		c.ambient[p] = slices.Clone(uses)
	}
	return c
}

// reported returns the line of lines that comes from rule and names every
// word of ends as a whole word, or "".
func reported(lines []string, rule string, ends []string) string {
	i := slices.IndexFunc(lines, func(line string) bool {
		words := strings.Fields(line)
		for i, w := range words {
			words[i] = strings.TrimRight(w, ":,")
		}
		return words[0] == rule && !slices.ContainsFunc(ends, func(e string) bool { return !slices.Contains(words, e) })
	})
	if i < 0 {
		return ""
	}
	return lines[i]
}

func TestLayeringCatchesPlantedViolations(t *testing.T) {
	base := realGraph(t)
	for _, pl := range plantedViolations {
		t.Run(pl.name, func(t *testing.T) {
			g := clone(base)
			pl.apply(&g)
			got := violations(g)
			line := reported(got, pl.rule, pl.ends)
			if line == "" {
				t.Fatalf("no %s violation naming %v; got:\n%s", pl.rule, pl.ends, strings.Join(got, "\n"))
			}
			t.Log(line)
		})
	}
}

func TestLayeringAllowsPermittedEdges(t *testing.T) {
	base := realGraph(t)
	want := violations(base)
	for _, pl := range plantedAllowed {
		t.Run(pl.name, func(t *testing.T) {
			g := clone(base)
			pl.apply(&g)
			for _, v := range violations(g) {
				if !slices.Contains(want, v) {
					t.Errorf("permitted plant reported: %s", v)
				}
			}
		})
	}
}

// TestLayeringGraphMatchesGoList checks the transitive closure the rules
// compute against the deps go list itself reports.
func TestLayeringGraphMatchesGoList(t *testing.T) {
	g := realGraph(t)
	for _, p := range g.modulePackages() {
		order, _ := g.reach(p)
		slices.Sort(order)
		want := slices.Sorted(slices.Values(loaded.listDeps[p]))
		if !slices.Equal(order, want) {
			t.Errorf("%s: closure of imports differs from go list Deps: only closure %v, only go list %v",
				g.rel(p), without(order, want), without(want, order))
		}
	}
}

// without is a minus b.
func without(a, b []string) []string {
	return slices.DeleteFunc(slices.Clone(a), func(s string) bool { return slices.Contains(b, s) })
}

const envSource = `package p

import (
	"os"
	sys "syscall"
)

type config struct{}

func (config) Getenv(string) string { return "" }

func read() {
	var c config
	_ = c.Getenv("A")
	_ = os.Getenv("B")
	_, _ = os.LookupEnv("C")
	_, _ = sys.Getenv("D")
	_ = os.Args
	_ = sys.Getpid()
}
`

func TestEnvReadDetector(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.go")
	if err := os.WriteFile(path, []byte(envSource), 0o644); err != nil {
		t.Fatal(err)
	}
	uses, err := envReadsInFile(token.NewFileSet(), path)
	if err != nil {
		t.Fatal(err)
	}
	want := []ambientUse{
		{what: "os.Getenv", pos: path + ":15"},
		{what: "os.LookupEnv", pos: path + ":16"},
		{what: "syscall.Getenv", pos: path + ":17"},
	}
	if !slices.Equal(uses, want) {
		t.Errorf("env reads = %v, want %v", uses, want)
	}
}
