package idemchaos

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The layering of idemchaos is its one-way data flow (docs/layout.md):
//
//	scenario -> plan -> clients -> targets -> stores
//	history + ledger -> checker -> results -> renderers
//
// The engine (engine/...) does the I/O of the first line and fills the
// records of package results; the renderers (reports) read those records.
// Both sit above results and the catalogs (scenarios, conformance), and
// neither sees the other. The entry points (the commands and the go test
// API) sit above both: they start runs and show them.
//
// Each rule below forbids an edge that would let data (or control) flow
// against that direction. Paths in rules are relative to the module;
// "x/..." means x and every package below it, "..." means every package of
// the module and "." is the root package.

// ruleKind says what a rule inspects.
type ruleKind int

const (
	// noImport forbids direct imports of module packages.
	noImport ruleKind = iota
	// noDep forbids transitive dependencies on external import-path
	// prefixes (matched on whole path elements).
	noDep
	// noAmbient forbids reading the environment or importing "flag" in
	// non-test files.
	noAmbient
)

// rule is one layering rule, as data.
type rule struct {
	name   string
	kind   ruleKind
	from   []string // module-relative patterns of the packages constrained
	except []string // module-relative patterns exempt from from
	forbid []string // noImport: module-relative patterns; noDep: import-path prefixes
	allow  []string // noImport: module-relative patterns carved out of forbid
}

// ioModules are the third-party modules that do I/O or own a process-wide
// concern (network faults, database and cache clients, metrics, logging,
// containers).
var ioModules = []string{
	"github.com/Shopify/toxiproxy",
	"github.com/jackc/pgx",
	"github.com/go-sql-driver/mysql",
	"github.com/redis/go-redis",
	"github.com/prometheus",
	"github.com/rs/zerolog",
	"github.com/ory/dockertest",
}

// entryPoints are where a run starts: the commands, and the go test API
// (scenariotest, clienttest: a team's own tests drive the engine through
// them, and scenariotest renders what failed as test errors). They sit at
// the top of the flow, above both the engine and the renderers.
var entryPoints = []string{"cmd/...", "scenariotest", "clienttest"}

var rules = []rule{
	// The targets are the bottom of the flow (clients -> targets ->
	// stores): the system under test knows nothing of the world that tests
	// it, so a target runs, and is reasoned about, on its own.
	{
		name:   "targets-below-sim",
		kind:   noImport,
		from:   []string{"targets/..."},
		forbid: []string{"sim/...", "scenarios/...", "reports/...", "cmd/..."},
	},
	// The simulated world talks to a target only through the harness-target
	// contract (clients -> targets), never through a strategy's, ledger's or
	// server's internals; and it is driven by the scenarios, so it cannot
	// look back up at them, at the renderers or at the entry points.
	{
		name:   "sim-sees-only-api",
		kind:   noImport,
		from:   []string{"sim/..."},
		forbid: []string{"targets/...", "scenarios/...", "reports/...", "cmd/..."},
		allow:  []string{"targets/api"},
	},
	// The checker is the pure function history + ledger -> verdict: it
	// reads the recorded history and the API contract and nothing else, so
	// its verdict cannot depend on how the run was planned or executed.
	{
		name:   "checker-reads-only-history",
		kind:   noImport,
		from:   []string{"scenarios/check"},
		forbid: []string{"..."},
		allow:  []string{"sim/history", "targets/api"},
	},
	// The pure core, the data model it reads and the renderers are
	// functions of recorded data (checker -> result -> renderers): no
	// network, database, metrics, logging or container library may reach
	// them, even transitively, so they can judge and render a saved run
	// anywhere.
	{
		name: "pure-without-io",
		kind: noDep,
		from: []string{
			"reports", "results", "results/rundir", "scenarios/narrate", "scenarios",
			"scenarios/spec", "scenarios/check", "targets/api",
			"targets/strategy/design", "sim/history", "conformance",
		},
		forbid: ioModules,
	},
	// The commands are the top of the flow, where a run starts: nothing
	// sits above them, so nothing imports them.
	{
		name:   "nothing-imports-cmd",
		kind:   noImport,
		from:   []string{"..."},
		forbid: []string{"cmd/..."},
	},
	// The engine does all the I/O of a run; only the entry points (the
	// commands and the go test API) drive it. The pure core and the
	// renderers get its results as data and never call back into it.
	{
		name:   "only-entry-points-run",
		kind:   noImport,
		from:   []string{"..."},
		except: append([]string{"engine/..."}, entryPoints...),
		forbid: []string{"engine/..."},
	},
	// The run's records sit below both the engine that fills them and the
	// renderers that read them: a record that imported either would make
	// saved runs depend on how they were run or shown.
	{
		name:   "results-below-engine-and-renderers",
		kind:   noImport,
		from:   []string{"results/..."},
		forbid: append([]string{"engine/...", "reports/...", "conformance/..."}, entryPoints...),
	},
	// The engine produces records and never renders them: what a run shows
	// is decided by the entry point that asked for it, from the records.
	{
		name:   "engine-renders-nothing",
		kind:   noImport,
		from:   []string{"engine/..."},
		forbid: []string{"reports/..."},
	},
	// The catalogs (scenarios, conformance) are read by the engine and the
	// renderers alike, so they import neither: the facts a run is planned
	// from cannot depend on how it is run or shown.
	{
		name:   "catalogs-below-engine-and-renderers",
		kind:   noImport,
		from:   []string{"scenarios/...", "conformance/..."},
		forbid: []string{"reports/...", "results/..."},
		allow:  []string{"results"},
	},
	// Configuration enters at the very start of the flow: only the
	// commands read the environment or flags; every other package gets its
	// settings as arguments, so a run is reproduced from its recorded
	// parameters alone.
	// provisiontest and clienttest are the exceptions, for test binaries
	// (which have no flags of their own): provisiontest reads where the
	// tests' stores and the suite's built commands are, clienttest hands a
	// client run as a command the test's own environment.
	{
		name:   "only-cmd-reads-ambient",
		kind:   noAmbient,
		from:   []string{"..."},
		except: []string{"cmd/...", "targets/provision/provisiontest", "clienttest"},
	},
	// Test support is for tests: a package of the module that imports it
	// outside its _test.go files would ship the exception above, or a test
	// table, in a binary.
	{
		name:   "test-support-only-in-tests",
		kind:   noImport,
		from:   []string{"..."},
		forbid: []string{"targets/provision/provisiontest", "targets/strategy/strategytest", "scenariotest", "clienttest"},
	},
}

// graph is the package graph of a build of the module.
type graph struct {
	module  string                  // the module path
	imports map[string][]string     // import path -> direct imports, every package of the build
	ambient map[string][]ambientUse // module import path -> env reads in its non-test files
}

// ambientUse is one read of the environment in source.
type ambientUse struct {
	what string // "os.Getenv"
	pos  string // "targets/provision/proc.go:133"
}

// violations checks the rules on g and returns one line per violation.
func violations(g graph) []string {
	return checkRules(g, rules)
}

// checkRules checks rs on g, in rule order, deterministically.
func checkRules(g graph, rs []rule) []string {
	var out []string
	pkgs := g.modulePackages()
	for _, r := range rs {
		out = append(out, r.missing(g)...)
		for _, p := range pkgs {
			if r.applies(g.rel(p)) {
				out = append(out, r.check(g, p)...)
			}
		}
	}
	return out
}

func (r rule) check(g graph, pkg string) []string {
	switch r.kind {
	case noImport:
		return r.checkImports(g, pkg)
	case noDep:
		return r.checkDeps(g, pkg)
	case noAmbient:
		return r.checkAmbient(g, pkg)
	}
	panic(fmt.Sprintf("rule %s: unknown kind %d", r.name, r.kind))
}

func (r rule) checkImports(g graph, pkg string) []string {
	var out []string
	for _, imp := range g.imports[pkg] {
		if g.inModule(imp) && r.forbids(g.rel(imp)) {
			out = append(out, fmt.Sprintf("%s: %s imports %s", r.name, g.rel(pkg), g.rel(imp)))
		}
	}
	return out
}

// checkDeps reports, per forbidden prefix, the shortest import chain from
// pkg to a package under it.
func (r rule) checkDeps(g graph, pkg string) []string {
	order, parent := g.reach(pkg)
	var out []string
	for _, prefix := range r.forbid {
		i := slices.IndexFunc(order, func(dep string) bool { return underPrefix(dep, prefix) })
		if i >= 0 {
			chain := strings.Join(g.chain(parent, order[i]), " -> ")
			out = append(out, fmt.Sprintf("%s: %s depends on %s via %s", r.name, g.rel(pkg), prefix, chain))
		}
	}
	return out
}

func (r rule) checkAmbient(g graph, pkg string) []string {
	var out []string
	for _, u := range g.ambient[pkg] {
		out = append(out, fmt.Sprintf("%s: %s reads the environment with %s at %s", r.name, g.rel(pkg), u.what, u.pos))
	}
	if slices.Contains(g.imports[pkg], "flag") {
		out = append(out, fmt.Sprintf("%s: %s imports flag", r.name, g.rel(pkg)))
	}
	return out
}

// missing reports the packages a rule names exactly that the module no
// longer has: a rule about a renamed package would otherwise pass silently.
func (r rule) missing(g graph) []string {
	named := slices.Concat(r.from, r.except)
	if r.kind == noImport {
		named = slices.Concat(named, r.forbid, r.allow)
	}
	var out []string
	for _, p := range named {
		if _, ok := g.imports[g.abs(p)]; !ok && !strings.Contains(p, "...") && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for i, p := range out {
		out[i] = fmt.Sprintf("%s: names %s, which is not a package of the module", r.name, p)
	}
	return out
}

func (r rule) applies(rel string) bool {
	return matchAny(r.from, rel) && !matchAny(r.except, rel)
}

func (r rule) forbids(rel string) bool {
	return matchAny(r.forbid, rel) && !matchAny(r.allow, rel)
}

func matchAny(patterns []string, rel string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return match(p, rel) })
}

// match reports whether the module-relative path rel matches pattern.
func match(pattern, rel string) bool {
	if pattern == "..." {
		return true
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return rel == base || strings.HasPrefix(rel, base+"/")
	}
	return rel == pattern
}

// underPrefix reports whether path is prefix or below it.
func underPrefix(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

func (g graph) inModule(path string) bool { return underPrefix(path, g.module) }

// rel is path relative to the module for module packages, "." for the
// root package, and path itself otherwise.
func (g graph) rel(path string) string {
	if path == g.module {
		return "."
	}
	if r, ok := strings.CutPrefix(path, g.module+"/"); ok {
		return r
	}
	return path
}

// abs is the import path of the module-relative path rel.
func (g graph) abs(rel string) string {
	if rel == "." {
		return g.module
	}
	return g.module + "/" + rel
}

// modulePackages lists the packages of the module, sorted.
func (g graph) modulePackages() []string {
	var out []string
	for p := range g.imports {
		if g.inModule(p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// reach walks the imports breadth-first from pkg. It returns every
// transitive dependency in the order reached (so the first match of a
// search has the shortest chain) and the parent each was reached from.
func (g graph) reach(pkg string) (order []string, parent map[string]string) {
	parent = map[string]string{pkg: ""}
	queue := []string{pkg}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, imp := range g.sortedImports(p) {
			if _, seen := parent[imp]; !seen {
				parent[imp] = p
				order = append(order, imp)
				queue = append(queue, imp)
			}
		}
	}
	return order, parent
}

func (g graph) sortedImports(p string) []string {
	imps := slices.Clone(g.imports[p])
	slices.Sort(imps)
	return imps
}

// chain is the import chain from the root of parent to dep, module
// packages written relative to the module.
func (g graph) chain(parent map[string]string, dep string) []string {
	var out []string
	for p := dep; p != ""; p = parent[p] {
		out = append(out, g.rel(p))
	}
	slices.Reverse(out)
	return out
}

// TestLayering checks the rules on the real module.
func TestLayering(t *testing.T) {
	g := realGraph(t)
	for _, v := range violations(g) {
		t.Error(v)
	}
}
