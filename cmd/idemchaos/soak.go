package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// Bounds of a soak.
const (
	soakDefaultDuration = 2 * time.Minute
	soakMinDuration     = time.Second // a round starts at least one cell
	soakMaxDuration     = 24 * time.Hour
	soakDefaultRounds   = 10000
	soakMaxRounds       = 1000000
)

// soakConfig is a parsed soak command line.
type soakConfig struct {
	c          common
	profile    api.Profile
	strategies []string
	scenarios  []string
	root       uint64
	duration   time.Duration
	maxRounds  int
	workers    int
}

func cmdSoak(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseSoak(args, time.Now())
	if err != nil {
		return err
	}
	if cfg.c.dryRun {
		_, err := fmt.Fprintf(stdout, "dry run: soak would run rounds of %s (%s x %s) for %s or %s%s; nothing was started\n",
			plural(len(cfg.strategies)*len(cfg.scenarios), "cell"), targets(len(cfg.strategies), "strateg"), plural(len(cfg.scenarios), "scenario"),
			cfg.duration, plural(cfg.maxRounds, "round"), soakShardNote(cfg))
		return err
	}
	if err := prepareOut(cfg.c.out, 0); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "soak: root seed %d (the same --seed gives the same seeds), for %s or %d rounds of %d cells%s\n",
		cfg.root, cfg.duration, cfg.maxRounds, len(cfg.strategies)*len(cfg.scenarios), soakShardNote(cfg))
	s, err := open(ctx, cfg.c, min(cfg.workers, len(cfg.strategies)*len(cfg.scenarios)), stderr, cfg.strategies...)
	if err != nil {
		return err
	}
	defer s.Close()
	k := newSoakRun(cfg, stderr)
	runErr := k.Run(ctx, s.Executors(), k)
	if err := k.output(stdout, runErr); err != nil {
		return err
	}
	announceOut(stderr, cfg.c.out)
	if runErr != nil {
		return envError(runErr) // exit 130 when interrupted, see report
	}
	return verdictExit(matrixExit(k.Tally.Results))
}

// parseSoak reads the soak flags; now seeds the root seed when --seed is absent.
func parseSoak(args []string, now time.Time) (soakConfig, error) {
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	var cfg soakConfig
	cfg.c.register(fs)
	sts := fs.String("strategies", "", "comma-separated strategies (default: all)")
	scs := fs.String("scenarios", "", "comma-separated scenarios (default: "+strings.Join(scenarios.SoakNames(), ",")+")")
	root := fs.Uint64("seed", 0, "root seed the round seeds derive from (default: from the clock, printed at start)")
	fs.DurationVar(&cfg.duration, "duration", soakDefaultDuration, "stop starting cells after this long (1s to 24h)")
	fs.IntVar(&cfg.maxRounds, "max-rounds", soakDefaultRounds, "stop after this many rounds (1 to 1000000)")
	fs.IntVar(&cfg.workers, "parallel", 2, "cells run at once, each on its own database (1 to 8)")
	cfg.c.registerShard(fs, "every shard draws the same round seeds from --seed and runs every Nth round, from round K")
	cfg.c.registerDryRun(fs)
	if err := parse(fs, args); err != nil {
		return cfg, err
	}
	var err error
	if cfg.profile, err = cfg.c.check(); err != nil {
		return cfg, err
	}
	if cfg.strategies, err = splitList("strategies", *sts, design.Names()); err != nil {
		return cfg, err
	}
	if strings.TrimSpace(*scs) == "" {
		*scs = strings.Join(scenarios.SoakNames(), ",")
	}
	if cfg.scenarios, err = splitList("scenarios", *scs, scenarios.Names()); err != nil {
		return cfg, err
	}
	cfg.root = *root
	if !flagSet(fs, "seed") {
		cfg.root = uint64(now.UnixNano())
	}
	return cfg, cfg.checkBounds()
}

func (cfg soakConfig) checkBounds() error {
	switch {
	case cfg.duration < soakMinDuration || cfg.duration > soakMaxDuration:
		return usageErrorf("--duration %s: want 1s to 24h", cfg.duration)
	case cfg.maxRounds < 1 || cfg.maxRounds > soakMaxRounds:
		return usageErrorf("--max-rounds %d: want 1 to %d", cfg.maxRounds, soakMaxRounds)
	case cfg.workers < 1 || cfg.workers > 8:
		return usageErrorf("--parallel %d: want 1 to 8", cfg.workers)
	}
	return nil
}

// flagSet reports whether the command line set the flag.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
