package main

import (
	"strings"
	"testing"
)

// TestEverySubcommandHasHelp: `idemchaos NAME -h` prints its usage line
// (with the DIR it takes), a paragraph and its flags on stdout, exit 0;
// list included, which has no flag to speak of.
func TestEverySubcommandHasHelp(t *testing.T) {
	args := map[string]string{"check": "DIR", "merge": "DIR... --out DIR", "report": "DIR|FILE", "demo": "SCENARIO"}
	for _, c := range commands {
		o := cliEnv(t, nil, c.name, "-h")
		if o.code != exitPass || o.stderr != "" {
			t.Errorf("%s -h: exit %d\n%s", c.name, o.code, o.stderr)
			continue
		}
		lines := strings.Split(o.stdout, "\n")
		if !strings.HasPrefix(lines[0], "usage: idemchaos "+c.name+" "+args[c.name]) {
			t.Errorf("%s -h starts %q; want its usage line", c.name, lines[0])
		}
		if !strings.Contains(flat(o.stdout), flat(c.about)) || len(c.about) < 100 {
			t.Errorf("%s -h lacks its description:\n%s", c.name, o.stdout)
		}
		if !strings.Contains(o.stdout, "\nflags:\n") {
			t.Errorf("%s -h lists no flags:\n%s", c.name, o.stdout)
		}
	}
	if o := cliEnv(t, nil, "help"); o.code != exitPass || !strings.Contains(o.stdout, "idemchaos demo SCENARIO [--strategy S]") ||
		!strings.Contains(o.stdout, "a forced interleaving, narrated for a room") {
		t.Errorf("help: exit %d\n%s", o.code, o.stdout)
	}
}

// TestDidYouMean: a mistyped subcommand, flag, strategy or scenario name is
// one line with the name meant, exit 2.
func TestDidYouMean(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"metrix"}, `unknown command "metrix" (did you mean matrix?`},
		{[]string{"matrix", "--quite"}, "matrix: unknown flag --quite; did you mean --quiet?"},
		{[]string{"check", "somewhere", "--jsno", "x"}, "check: unknown flag --jsno; did you mean --json?"},
		{[]string{"run", "--strategy", "redis-setxn", "--scenario", "missing-key"}, `--strategy: unknown name "redis-setxn" (did you mean redis-setnx?`},
		{[]string{"matrix", "--scenarios", "missing-key,forced-rcae"}, `--scenarios: unknown name "forced-rcae" (did you mean forced-race?`},
		{[]string{"demo", "dropped-reponse"}, `demo: unknown scenario "dropped-reponse" (did you mean dropped-response?`},
	} {
		o := cliEnv(t, nil, c.args...)
		if o.code != exitUsage || strings.Count(o.stderr, "\n") != 1 || !strings.Contains(o.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", c.args, o.code, o.stderr, c.want)
		}
	}
	if o := cliEnv(t, nil, "matrix", "--zzzzzz"); o.code != exitUsage || strings.Contains(o.stderr, "did you mean") {
		t.Errorf("a flag like no other got a suggestion: %q", o.stderr)
	}
}

func TestNearest(t *testing.T) {
	known := []string{"quiet", "seed", "seeds", "strategies", "scenarios", "json"}
	for v, want := range map[string]string{"quite": "quiet", "sed": "seed", "strategis": "strategies", "scenario": "scenarios",
		"strat": "strategies", "s": "", "xyz": "", "jsno": "json"} {
		if got := nearest(v, known); got != want {
			t.Errorf("nearest(%q) = %q; want %q", v, got, want)
		}
	}
}

// TestQuietWhereverStoresStart: --quiet and --verbose are taken by run
// (as by matrix, soak, demo and bench); --quiet leaves stderr without
// provisioning lines, and so does the default when the stores start;
// --verbose says how they start, and a store that fails to start shows
// those lines before its error.
func TestQuietWhereverStoresStart(t *testing.T) {
	o := cli(t, "run", "--quiet", "--strategy", "pg-tx", "--scenario", "missing-key")
	if o.code != exitPass || o.stderr != "" {
		t.Fatalf("run --quiet: exit %d, stderr %q", o.code, o.stderr)
	}
	if o := cli(t, "run", "--strategy", "pg-tx", "--scenario", "missing-key"); o.code != exitPass || o.stderr != "" {
		t.Errorf("run: exit %d, stderr %q; want the stores' start held back", o.code, o.stderr)
	}
	if o := cli(t, "run", "--verbose", "--strategy", "pg-tx", "--scenario", "missing-key"); !strings.Contains(o.stderr, "stores: ") {
		t.Errorf("run --verbose does not say which stores it uses: %q", o.stderr)
	}
	noPostgres := []string{"IDEMCHAOS_REDIS_URL=", "IDEMCHAOS_POSTGRES_URL=postgres://u@127.0.0.1:1/db"} // a local Redis starts
	o = cliEnv(t, noPostgres, "run", "--no-docker", "--strategy", "pg-tx", "--scenario", "missing-key")
	if ready, fail := strings.Index(o.stderr, "redis ready on "), strings.Index(o.stderr, "idemchaos: postgres at "); o.code != exitEnv || ready < 0 || fail < ready {
		t.Errorf("run with an unreachable Postgres: exit %d, stderr %q; want the lines of the Redis it started, then the error", o.code, o.stderr)
	}
	for _, cmd := range []string{"soak", "demo", "bench", "matrix"} {
		for _, flag := range []string{"--quiet", "--verbose"} {
			if o := cliEnv(t, nil, cmd, flag, "--replicas", "0", "--strategies", "nope"); strings.Contains(o.stderr, "unknown flag "+flag) {
				t.Errorf("%s refuses %s: %s", cmd, flag, o.stderr)
			}
		}
	}
}
