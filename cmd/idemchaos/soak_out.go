package main

import (
	"io"
	"time"

	"github.com/idemchaos/idemchaos/reports"
)

// output saves the document (--out, --json) and prints the summary, also
// after an interruption.
func (k *soakRun) output(stdout io.Writer, runErr error) error {
	results := k.Tally.Sorted()
	return output(k.cfg.c, stdout, results, k.lat, "soak", k.Started, func(w io.Writer) error {
		return reports.WriteSoak(w, reports.Soak{Root: k.cfg.root, Rounds: k.Rounds, Stopped: k.Stopped,
			Took: time.Since(k.Started), Profile: k.cfg.profile.Name, Tally: k.Tally, Failed: runErr != nil})
	})
}
