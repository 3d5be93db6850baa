package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/idemchaos/idemchaos/conformance"
	"github.com/idemchaos/idemchaos/reports"
)

// command is a subcommand as its help and the main usage tell it.
type command struct {
	name  string
	forms []string // usage lines after "idemchaos NAME"
	short string   // a few words for the main usage
	about string   // the paragraph of NAME -h
}

// commands is every subcommand, in the order the main usage lists them.
var commands = []command{
	{"list", []string{"[--wide]"}, "strategies, scenarios, profiles, what runs against your service",
		"Lists the built-in strategies (each one's mechanism, its flaw and the scenarios that catch it), the scenarios " +
			"(what each does and reveals), the contract profiles, and which scenarios run against your own service with " +
			"what help. It fits $COLUMNS (else the terminal, else 120 columns); --wide prints it as one table."},
	{"run", []string{"--strategy S --scenario C [--seed N] [--out DIR] [--json FILE]",
		"--target-url URL --ledger-url DSN --ledger-query SQL --scenario C"}, "one cell, against a built-in strategy or your own service",
		"Runs one scenario against one built-in strategy (or, with --target-url, against your own service) on one seed " +
			"and prints the verdict, the anomalies with their evidence and the command that runs it again. Exit 0 pass, " +
			"1 an invariant broken, 4 inconclusive, 2 bad input, 3 environment, 130 interrupted."},
	{"matrix", []string{"[--strategies a,b] [--scenarios x,y] [--seeds N] [--shard K/N] [--out DIR] [--json FILE]"},
		"every strategy under every scenario",
		"Runs every strategy (--strategies) under every scenario (--scenarios) on --seeds seeds and prints the matrix, " +
			"what each cell shows against what the catalog declares, the evidence and repro line of every cell that " +
			"did not pass, and the verdict. With --out it saves the run and its HTML report (DIR/report.html), which then " +
			"holds the evidence of the cells caught as declared. The matrix fits $COLUMNS (compact, numbered scenario " +
			"columns) unless --wide. Exit 0 when every cell is as declared, 1 when one is not, 4 when one is inconclusive."},
	{"soak", []string{"[--duration D] [--strategies a,b] [--scenarios x,y] [--seed N] [--shard K/N] [--out DIR]"},
		"fresh seeds until a deadline",
		"Runs rounds of every (strategy, scenario) cell, each round on a new seed drawn from one root seed, until " +
			"--duration or --max-rounds; reports every cell not as declared at once and a summary per strategy at the end. " +
			"Exit 0 nothing unexpected or missed, 1 otherwise, 4 only inconclusive cells, 130 interrupted."},
	{"merge", []string{"DIR... --out DIR"}, "join the run directories of shards 1/N..N/N into one",
		"Joins the run directories of the N shards of one run (matrix --shard, soak --shard, explore --shard) into the new run " +
			"directory --out, which check and report read like any other; refuses a missing, duplicated, interrupted or " +
			"foreign shard. Its exit code is the whole run's verdict."},
	{"check", []string{"DIR [--json FILE]"}, "re-check a saved run offline",
		"Judges every finished cell of the run directory DIR again from its saved history and snapshots, prints the " +
			"same matrix, and lists every cell whose verdict differs from the one saved (exit 1). A run that was " +
			"interrupted is said to be, with how many cells never started, and exits 4 unless a finished cell failed. " +
			"An exploration the run saved is judged again from every order's records, printed as explore printed it, " +
			"with explore's exit code (1 too when a verdict or an order's outcome differs from the one saved)."},
	{"report", []string{"DIR|FILE --format table|json|junit|markdown|html [-o FILE]"}, "render a saved run or bench",
		"Renders the run directory DIR (or a --json results or bench file) in one format: the terminal table, the " +
			"canonical JSON, JUnit XML, Markdown for a CI step summary, or one self-contained HTML page."},
	{"demo", []string{"SCENARIO [--strategy S] [--seed N]", "LESSON", "--list"}, "a forced interleaving, narrated for a room",
		"Runs one cell and tells the story of one key step by step, then explains each anomaly it shows for the " +
			"strategy shown, and prints a Mermaid sequence diagram. The stores start quietly (--verbose shows how). " +
			"Exit 1 when the story ends in an anomaly (the point of most demos), 0 when it ends well, 4 when the run " +
			"proved nothing. A LESSON (go-redis-retry, go-http-resend) shows a client library re-sending a call behind its caller's back."},
	{"shrink", []string{"DIR [--k K] [--timeout D] [--file FILE]", "--strategy S --scenario C [--seed N] [--k K] [--timeout D]",
		"--target-url URL --ledger-url DSN --ledger-query SQL --scenario C [--seed N]"}, "a failing cell cut down to a minimal scenario file",
		"Takes a failing cell (the run directory DIR of one, or the cell --strategy or --target-url, --scenario and " +
			"--seed name), writes it as a scenario file and cuts it down one step at a time (fewer keys, faults, " +
			"duplicates and tries, shorter timings), keeping a cut only when the smaller scenario, re-run on the real " +
			"stores K times (--k, default 3), fails with the same anomaly every time; the search stops when no cut " +
			"fails or at --timeout. It writes the minimal scenario file (--file), its repro line and the story of its " +
			"run. Exit 0 shrunk, 4 the cell did not fail, 2 bad input, 3 environment."},
	{"explore", []string{"--strategy S [--case C,...|all] [--requests 2|3] [--preemptions N] [--bound D] [--json FILE] [--html FILE]",
		"--strategy S --case C --order ORDER [--repeat N]", "--strategy S --case all --shard K/N --out DIR"}, "every order of a key's requests, each held at every point",
		"Runs two (or three) requests of one key through every order of their steps: each request is held at every " +
			"failpoint it reaches (and before it is sent), and the scheduler releases one at a time, every choice " +
			"explored depth first, each order a fresh execution on a key and an account of its own. A released request " +
			"that does not reach its next point within the bound (measured, or --bound) waits on another: it is a held " +
			"duplicate, and the others go on around it. It prints what was proved (every order holds, or which broke " +
			"an invariant in how many orders), the shortest failing order as columns with the line that replays it " +
			"(--order), the orders that varied when run again, and the lattice of the orders of two requests, with the " +
			"steps by which the failing orders enter the states where every order fails (the race's window); --html " +
			"writes it all as one page, each step of the lattice coloured by the outcomes of the orders through it. --out " +
			"saves every order's records in a run directory, which check DIR judges again offline; --shard splits the cases, " +
			"and merge joins the shards. Exit 0 every order holds, 1 an order broke an invariant every time it ran, 4 an order " +
			"varied or could not be run."},
	{"bench", []string{"[--strategies a,b] [--rate R | --concurrency C] [--duration D] [--dup-ratio P]",
		"--compare [--rounds N] [--duration D] [--json FILE]"}, "what each strategy costs",
		"Measures each strategy's latency percentiles and throughput under an open-model load (or a closed one with " +
			"--concurrency), with a share of duplicate retries, and writes them as a table, JSON, Markdown or HTML. " +
			"The strategies on InnoDB run on a MariaDB started for them (--mysql-url names one). " +
			"--compare measures pg-tx's and none's SQL with pgbench, none, pg-tx and redis-pg-guard with wrk, and pg-tx " +
			"and none with idemchaos's closed and open models (and pg-tx with vegeta's open model, when vegeta is installed), " +
			"and beside them innodb-tx's SQL with mysqlslap, innodb-tx with wrk and with idemchaos's closed model (left out, " +
			"said on one line, without mysqlslap or a MariaDB), interleaved over --rounds rounds of --duration each on " +
			"the same stores, and prints the ratios with their ranges and the CPU time per request of Postgres, Redis, " +
			"MariaDB, idemchaos and the load tool (exit 3 without pgbench or wrk)."},
	{"lint", []string{"--openapi FILE [--profile ietf|stripe|FILE] [--operation ID]"}, "your OpenAPI description against a profile",
		"Checks the idempotency contract your service's OpenAPI description documents against a profile: the key " +
			"header declared (required when the profile refuses a request without a key, optional when it serves one), " +
			"each refusal status of the profile (ietf: 400, 409, 422; stripe: 409, 400) documented with a JSON body, and " +
			"the profile's replay marker header (stripe: Idempotent-Replayed) documented on the success answers. Exit 0 " +
			"when it documents the contract, 1 with one line per gap, 2 for a description it cannot read."},
	{"client", []string{"[--shape json|stripe] [--seed N] [--seeds N] [--require-key] [--out DIR] -- COMMAND [ARG...]",
		"--serve 127.0.0.1:0 [--stdin] [--shape json|stripe] [--seed N] [--out DIR]"},
		"judge your retrying client (idemchaos serves the API)",
		"Serves the payment API (pg-tx on its own Postgres, in the --shape the client speaks) with seeded faults in " +
			"front of it: answers dropped after the commit, resets before the request is read, a commit held while the " +
			"client retries (409), 503 and 429 with Retry-After, answers after the client's timeout. It runs COMMAND with " +
			"IDEMCHAOS_URL, IDEMCHAOS_OPS (a JSON file of the charges to make), IDEMCHAOS_TIMEOUT_MS and IDEMCHAOS_SHAPE, " +
			"reads one line per operation from its output (\"op-01 succeeded ...\" or \"op-01 failed ...\"), and judges " +
			"what the server received and what the client told against the ledger: a retry under a new key or none, a key " +
			"for two operations, a changed body, no back-off, Retry-After ignored, a failure told for a charge that " +
			"happened. With --serve instead of a command it serves the API on that loopback address for a client you run " +
			"by hand, says what to give it, and reads its outcome lines from POSTs to its told endpoint (and stdin, " +
			"with --stdin). Exit 0 pass, 1 an anomaly, 4 inconclusive (an operation never sent or never reported, a " +
			"fault never met), 2 bad input, 3 environment."},
	{"conformance", []string{"[--targets a,b] [--scenarios x,y] [--profiles p,q] [--seeds N] [--out DIR] [--md FILE]",
		"--seeds 1 --golden FILE", "--from DIR [--md FILE] [--verdicts FILE]",
		"--clients [--only a,b] [--seeds N] [--out DIR] [--md FILE] [--verdicts FILE] [--golden FILE] [--from DIR]"},
		"idempotency libraries and client SDKs (CONFORMANCE.md, CLIENTS.md)",
		"Builds and starts each conformance target (Fiber v2's idempotency middleware, @node-idempotency/core, " +
			"Powertools' makeIdempotent, and paymentd's pg-tx and redis-pg-guard as reference rows) on loopback, runs every " +
			"scenario that can run against it under each profile on --seeds seeds, exactly as against your own service, and " +
			"writes the table with each finding explained by the library's own code (--md), the verdicts (--verdicts) and " +
			"the run (--out: JSON, JUnit, HTML). --golden compares the verdicts with a committed file: exit 1 with the " +
			"difference if one changed. With --clients it builds the client drivers of conformance/clients/ (" +
			strings.Join(conformance.ClientNames(), ", ") + ": each library's documented usage at a pinned version) and judges each with client mode on --seeds seeds (default 5): the table with each finding " +
			"explained by the library's own code (--md CLIENTS.md), one verdict per client (--verdicts), each seed's run " +
			"(--out, which check DIR judges again)."},
}

// commandNamed is the subcommand called name.
func commandNamed(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// commandNames lists the subcommands.
func commandNames() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return names
}

// mainUsage is what `idemchaos help` prints.
func mainUsage() string {
	var b strings.Builder
	b.WriteString("idemchaos: chaos and simulation harness for the Idempotency-Key pattern\n\nusage:\n")
	for _, c := range commands {
		for i, f := range c.forms {
			head := "  idemchaos " + c.name + " "
			line := strings.TrimSuffix(reports.Wrap(head, strings.Repeat(" ", len(head)+2), bracketsWhole(f), 118), "\n")
			line = strings.ReplaceAll(line, "\x00", " ")
			switch {
			case i > 0:
			case len(line) < 50:
				line = fmt.Sprintf("%-50s %s", line, c.short)
			default:
				line += fmt.Sprintf("\n%51s%s", "", c.short)
			}
			b.WriteString(line + "\n")
		}
	}
	b.WriteString(usageTail)
	return b.String()
}

const usageTail = `
common flags: --redis-url, --postgres-url (else IDEMCHAOS_REDIS_URL, IDEMCHAOS_POSTGRES_URL;
              else a Docker engine; else local redis-server and postgres), --mysql-url (else
              IDEMCHAOS_MYSQL_URL, Docker, a local MariaDB; for the innodb-* strategies only),
              --no-docker, --quiet (no progress), --verbose (how the stores start; else said only if
              they fail to),
              --profile NAME|FILE, --scenario-file FILE (run, matrix: a scenario of your own, see examples/),
              --shard K/N (matrix, soak: this process's share of the run; idemchaos merge joins the shards),
              --wide, --color auto|always|never (the terminal view; NO_COLOR is respected)
exit codes: 0 pass (matrix: every cell as declared), 1 invariant violated (matrix: a cell not as
            declared; lint: a gap), 2 usage or bad input, 3 environment error, 4 inconclusive (check: an
            interrupted run), 130 interrupted
run 'idemchaos COMMAND -h' for a command's usage and flags
`

// helpWidth is where help text breaks its lines (a terminal of 120
// columns keeps them whole).
const helpWidth = 100

// writeHelp prints a subcommand's usage lines, its paragraph and its
// flags, each flag's description wrapped under it.
func writeHelp(w io.Writer, fs *flag.FlagSet) {
	c, _ := commandNamed(fs.Name())
	for i, f := range c.forms {
		head := "usage: "
		if i > 0 {
			head = "       "
		}
		head += "idemchaos " + c.name + " "
		form := reports.Wrap(head, strings.Repeat(" ", len(head)+2), bracketsWhole(f), helpWidth)
		fmt.Fprint(w, strings.ReplaceAll(form, "\x00", " "))
	}
	fmt.Fprint(w, "\n"+reports.Wrap("", "", c.about, helpWidth))
	first := true
	fs.VisitAll(func(f *flag.Flag) {
		if first {
			fmt.Fprintln(w, "\nflags:")
			first = false
		}
		kind, usage := flag.UnquoteUsage(f)
		fmt.Fprintln(w, strings.TrimRight("  -"+f.Name+" "+kind, " "))
		fmt.Fprint(w, reports.Wrap("        ", "        ", usage+defaultNote(f, kind), helpWidth))
	})
}

// bracketsWhole joins the words of each [...] group of a usage form with
// a NUL, so that a wrap breaks lines between groups only.
func bracketsWhole(form string) string {
	var b strings.Builder
	depth := 0
	for _, r := range form {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case r == ' ' && depth > 0:
			r = 0
		}
		b.WriteRune(r)
	}
	return b.String()
}

// defaultNote says a flag's default, as flag.PrintDefaults does: none for
// a zero value, a string's quoted.
func defaultNote(f *flag.Flag, kind string) string {
	switch f.DefValue {
	case "", "0", "false", "0s":
		return ""
	}
	if kind == "string" {
		return fmt.Sprintf(" (default %q)", f.DefValue)
	}
	return " (default " + f.DefValue + ")"
}

// flagError turns a flag parsing error into what the user sees: the help
// on -h (then flag.ErrHelp, exit 0), else a one-line usage error that
// suggests the flag meant.
func flagError(fs *flag.FlagSet, err error) error {
	if errors.Is(err, flag.ErrHelp) {
		writeHelp(os.Stdout, fs)
		return err
	}
	const undefined = "flag provided but not defined: -"
	if name, ok := strings.CutPrefix(err.Error(), undefined); ok {
		var known []string
		fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
		hint := ""
		if m := nearest(name, known); m != "" {
			hint = fmt.Sprintf("; did you mean --%s?", m)
		}
		return usageErrorf("%s: unknown flag --%s%s (idemchaos %s -h lists them)", fs.Name(), strings.TrimLeft(name, "-"), hint, fs.Name())
	}
	return usageErrorf("%s: %v", fs.Name(), err)
}
