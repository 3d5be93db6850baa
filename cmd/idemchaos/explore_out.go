package main

import (
	"fmt"
	"io"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/explore"
	"github.com/idemchaos/idemchaos/targets/api"
)

// settings are the flags besides the target and the cases that decide
// what an exploration runs: every shard of one run has the same.
func (f exploreFlags) settings(p api.Profile) string {
	return fmt.Sprintf("requests=%d preemptions=%d bound=%s recheck=%d seed=%d profile=%q file=%q",
		f.requests, f.preemptions, f.bound, f.recheck, f.seed, p.Name, p.File)
}

// exploreShardSummary ends a shard's output with its share and what
// comes next.
func exploreShardSummary(w io.Writer, rec *scenarios.ShardRecord, n int) error {
	if rec == nil {
		return nil
	}
	_, err := fmt.Fprintf(w, "\nshard %s: %d of %d cases; %s\n", rec.Shard, n, rec.Cells, mergeHint)
	return err
}

// exploreExit is the worst of the cases' verdicts: 1 when an order of a
// case broke an invariant every time it ran, 4 when none did but an order
// varied or could not be run, else 0.
func exploreExit(res []explore.Result) int {
	code := exitPass
	for _, r := range res {
		switch c := runExit(r.Verdict()); {
		case c == exitViolated:
			return c
		case c == exitInconclusive:
			code = c
		}
	}
	return code
}

// exploreFiles are where an exploration is written besides the terminal;
// "-" is stdout, for one of them at most.
type exploreFiles struct{ json, html string }

func (f exploreFiles) toStdout() bool { return f.json == "-" || f.html == "-" }

// check refuses, before the exploration, files that could not be written.
func (f exploreFiles) check() error {
	switch {
	case f.json == "-" && f.html == "-":
		return usageErrorf("explore: only one of --json and --html may be - (stdout)")
	case f.json != "" && f.json == f.html:
		return usageErrorf("explore: --json and --html both write %s", f.json)
	}
	for _, o := range [][2]string{{"--json", f.json}, {"--html", f.html}} {
		if o[1] != "" && o[1] != "-" {
			if err := checkDir(o[0], o[1]); err != nil {
				return err
			}
		}
	}
	return nil
}

// write writes the files asked for: the document, the page of every case.
func (f exploreFiles) write(stdout io.Writer, doc results.Document) error {
	if f.json != "" {
		if err := writeFlagFile("--json", f.json, stdout, func(w io.Writer) error { return results.WriteJSON(w, doc) }); err != nil {
			return err
		}
	}
	if res := doc.Explorations; f.html != "" && len(res) > 0 {
		return writeFlagFile("--html", f.html, stdout, func(w io.Writer) error { return reports.WriteExploreHTML(w, res, res[0].Args) })
	}
	return nil
}
