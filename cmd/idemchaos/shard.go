package main

import (
	"fmt"
	"io"
	"time"

	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
)

// mergeHint says what to do with a shard's run directory.
const mergeHint = "idemchaos merge DIR... --out DIR joins the shards' run directories"

// shardCells keeps the shard's share of the whole run's cells (all of them
// without --shard, with a nil record) and says how many on log.
func shardCells(s scenarios.Shard, all []scenarios.Cell, log io.Writer) (*scenarios.ShardRecord, []scenarios.Cell) {
	if !s.Set() {
		return nil, all
	}
	rec := scenarios.MatrixShard(s, all)
	mine := s.Select(all)
	fmt.Fprintf(log, "shard %s: %d of %d cells\n", s, len(mine), len(all))
	return rec, mine
}

// shardNote is " (shard 2/3: 40 of 120 cells)", or "" for a whole run.
func shardNote(rec *scenarios.ShardRecord, n int) string {
	if rec == nil {
		return ""
	}
	return fmt.Sprintf(" (shard %s: %d of %d cells)", rec.Shard, n, rec.Cells)
}

// shardSummary ends a shard's summary with its share and what comes next.
func shardSummary(w io.Writer, rec *scenarios.ShardRecord, n int) error {
	if rec == nil {
		return nil
	}
	if n == 0 {
		_, err := fmt.Fprintf(w, "shard %s: 0 of %d cells (fewer cells than shards): nothing to run; %s\n", rec.Shard, rec.Cells, mergeHint)
		return err
	}
	_, err := fmt.Fprintf(w, "\nshard %s: %d of %d cells; %s\n", rec.Shard, n, rec.Cells, mergeHint)
	return err
}

// emptyShard ends a shard that got no cell (more shards than cells): its
// run directory and document say so, and it passes, so that a CI job
// matrix of a fixed size still merges.
func emptyShard(c common, stdout, stderr io.Writer, rec *scenarios.ShardRecord, cmd string, skipped []results.Skip) error {
	doc := results.NewDocument([]scenarios.Result{}, results.NewLatencies(), cmd, time.Now())
	doc.Shard, doc.Skipped = rec, skipped
	if err := writeOutput(c, stdout, doc, func(w io.Writer) error { return shardSummary(w, rec, 0) }); err != nil {
		return err
	}
	announceOut(stderr, c.out)
	return nil
}

// soakShard is the record of a soak shard (nil without --shard).
func soakShard(cfg soakConfig, interrupted bool) *scenarios.ShardRecord {
	if !cfg.c.shard.Set() {
		return nil
	}
	rec := scenarios.SoakShard(cfg.c.shard, cfg.strategies, cfg.scenarios, cfg.root, cfg.maxRounds, cfg.profile, cfg.c.replicas)
	rec.Interrupted = interrupted
	return rec
}

// soakShardNote is "; shard 2/4: rounds 2, 6, 10, ... (at most 2500 of them)".
func soakShardNote(cfg soakConfig) string {
	s := cfg.c.shard
	if !s.Set() {
		return ""
	}
	return fmt.Sprintf("; shard %s: %s (at most %d of them)", s, shardRounds(s, cfg.maxRounds), s.Size(cfg.maxRounds))
}

// shardRounds names the rounds up to last that fall to s: "round 2",
// "rounds 2 and 6", "rounds 2, 6, ..., 9998".
func shardRounds(s scenarios.Shard, last int) string {
	if last < s.K {
		return "no round (fewer rounds than shards)"
	}
	count := (last-s.K)/s.N + 1
	end := s.K + (count-1)*s.N
	switch count {
	case 1:
		return fmt.Sprintf("round %d", s.K)
	case 2:
		return fmt.Sprintf("rounds %d and %d", s.K, end)
	case 3:
		return fmt.Sprintf("rounds %d, %d and %d", s.K, s.K+s.N, end)
	}
	return fmt.Sprintf("rounds %d, %d, ..., %d", s.K, s.K+s.N, end)
}
