package main

import (
	"fmt"
	"io"
	"time"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
)

// output saves the document (--out, --json) and prints the summary, also
// after an interruption.
func (k *soakRun) output(stdout io.Writer, runErr error) error {
	doc := results.NewDocument(k.Tally.Sorted(), k.lat, "soak", k.Started)
	doc.Shard = soakShard(k.cfg, runErr != nil)
	return writeOutput(k.cfg.c, stdout, doc, func(w io.Writer) error {
		err := reports.WriteSoak(w, reports.Soak{Root: k.cfg.root, Rounds: k.Rounds, Stopped: k.Stopped,
			Took: time.Since(k.Started), Profile: k.cfg.profile.Name, Tally: k.Tally, Failed: runErr != nil})
		if err == nil && doc.Shard != nil {
			_, err = fmt.Fprintf(w, "shard %s: %d rounds of the seed stream (%s), %d cells; %s\n",
				doc.Shard.Shard, k.Rounds, shardRounds(doc.Shard.Shard, doc.Shard.K+(k.Rounds-1)*doc.Shard.N), k.Tally.Total.Cells, mergeHint)
		}
		return err
	})
}
