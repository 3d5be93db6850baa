package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/idemchaos/idemchaos/scenarios"
)

// registerDryRun adds --dry-run (run, matrix, soak).
func (c *common) registerDryRun(fs *flag.FlagSet) {
	fs.BoolVar(&c.dryRun, "dry-run", false, "check the command line and everything it names (strategies, scenarios, profile, "+
		"shard, your service's description and its files), say what would run, and exit 0 without starting anything")
}

// dryRun says what a checked command line would run, on stdout: mine of
// all (its shard's share; nil shard: all of them), skipped scenarios aside.
func dryRun(w io.Writer, cmd string, all, mine []scenarios.Cell, shard *scenarios.ShardRecord, skipped int) error {
	return dryRunSkipping(w, cmd, all, mine, shard, skipped, "scenario")
}

// dryRunSkipping is dryRun with skipped counted in units ("scenario",
// "cell").
func dryRunSkipping(w io.Writer, cmd string, all, mine []scenarios.Cell, shard *scenarios.ShardRecord, skipped int, unit string) error {
	strategies, scens, seeds := map[string]bool{}, map[string]bool{}, map[uint64]bool{}
	what := "strateg"
	for _, c := range all {
		strategies[c.Strategy], scens[c.Scenario], seeds[c.Seed] = true, true, true
		if c.Service() {
			what = "service"
		}
	}
	axes := fmt.Sprintf("%s x %s x %s", targets(len(strategies), what), plural(len(scens), "scenario"), plural(len(seeds), "seed"))
	if shard == nil {
		fmt.Fprintf(w, "dry run: %s would run %s (%s)", cmd, plural(len(mine), "cell"), axes)
	} else {
		fmt.Fprintf(w, "dry run: %s would run %d of the run's %s (shard %s; %s)", cmd, len(mine), plural(len(all), "cell"), shard.Shard, axes)
	}
	if skipped > 0 {
		fmt.Fprintf(w, ", %s skipped", plural(skipped, unit))
	}
	_, err := fmt.Fprintln(w, "; nothing was started")
	return err
}

// targets is "1 strategy", "15 strategies", "1 service".
func targets(n int, what string) string {
	switch {
	case what == "service":
		return plural(n, what)
	case n == 1:
		return "1 strategy"
	}
	return fmt.Sprintf("%d strategies", n)
}

// plural is "1 cell", "3 cells".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
