package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios/explore"
	"github.com/idemchaos/idemchaos/sim/history"
)

// TestExploreSaved: explore --out saves every order's records in the run
// document and its page (report.html, which report --format html writes
// again; the formats that cannot draw an exploration refuse); check DIR judges them again offline and prints what explore
// printed, with its exit code; records edited to a double charge are
// judged to one (exit 1, the difference told); a truncated or foreign run
// directory is one line, exit 2.
func TestExploreSaved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "explored")
	o := cli(t, "explore", "--strategy", "pg-tx", "--case", "duplicate,mismatch", "--quiet", "--out", dir)
	doc := readExploreDoc(t, dir)
	if o.code != exitPass || doc.Command != "explore" || len(doc.Explorations) != 2 || !strings.Contains(o.stderr, "idemchaos check "+dir) {
		t.Fatalf("explore --out: exit %d, %d cases saved\n%s\n%s", o.code, len(doc.Explorations), o.stdout, o.stderr)
	}
	for _, c := range doc.Explorations {
		if c.Profile.Name != "ietf" || len(c.Runs) < 2 || len(c.Runs[0].Attempts) != 2 || c.Args != "--strategy pg-tx" {
			t.Errorf("case %s saved without its records: %+v", c.Case, c)
		}
	}
	page := filepath.Join(dir, rundir.ReportFile)
	if html := readFile(t, page); strings.Count(html, `<svg class="grid"`) != 2 || !strings.Contains(o.stderr, "its page: "+page) {
		t.Errorf("explore --out: the page %s does not draw both cases, or is not named (%q)", page, o.stderr)
	}
	if r := cli(t, "report", dir, "--format", "html"); r.code != exitPass || r.stdout != readFile(t, page) {
		t.Errorf("report --format html of an exploration: exit %d, %d bytes; want the saved page\n%s", r.code, len(r.stdout), r.stderr)
	}
	if r := cli(t, "report", dir, "--format", "junit"); r.code != exitUsage || !strings.Contains(r.stderr, "want table, json or html") {
		t.Errorf("report --format junit of an exploration: exit %d\n%s", r.code, r.stderr)
	}
	again := cli(t, "check", dir)
	if again.code != exitPass || again.stdout != o.stdout || !strings.Contains(again.stderr, "re-judged 2 cases of an exploration offline: 0 differ") {
		t.Fatalf("check: exit %d\n%s\nwant the output of explore:\n%s\n%s", again.code, again.stdout, o.stdout, again.stderr)
	}

	dup := &doc.Explorations[0]
	i := slices.IndexFunc(dup.Runs, func(r explore.Run) bool { return len(r.Reruns) == 0 }) // not re-run: its edit cannot vary
	if i < 0 {
		t.Fatalf("every order of %s was run again", dup.Case)
	}
	run := &dup.Runs[i]
	a, b := run.Attempts[0], run.Attempts[1]
	run.Ledger.Charges = append(run.Ledger.Charges, history.Charge{ID: "ch_edited", Key: a.Key, Account: a.Account, Amount: a.Amount,
		AttemptID: b.ID, Seq: int64(len(run.Ledger.Charges) + 1)})
	writeExploreDoc(t, dir, doc)
	edited := cli(t, "check", dir)
	if edited.code != exitViolated || !strings.Contains(edited.stdout, "pg-tx, duplicate (2 requests, every order): double_charge in 1 of ") ||
		!strings.Contains(edited.stderr, "duplicate: saved pass") || !strings.Contains(edited.stderr, "re-judged fail") {
		t.Errorf("check of an edited double charge: exit %d\n%s\n%s", edited.code, edited.stdout, edited.stderr)
	}

	data := readFile(t, filepath.Join(dir, rundir.DocumentFile))
	if err := os.WriteFile(filepath.Join(dir, rundir.DocumentFile), []byte(data[:len(data)/2]), 0o644); err != nil {
		t.Fatal(err)
	}
	foreign := t.TempDir()
	if err := os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other")
	if err := rundir.Prepare(other, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, rundir.DocumentFile), []byte(`{"schema_version": 1, "command": "explore", "explorations": [{"case": "nope"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct{ dir, want string }{
		{dir, rundir.DocumentFile}, {foreign, "holds no cells"}, {other, `unknown case "nope"`},
	} {
		o := cli(t, "check", bad.dir)
		if o.code != exitUsage || !strings.Contains(o.stderr, bad.want) || strings.Count(strings.TrimSpace(o.stderr), "\n") > 0 {
			t.Errorf("check %s: exit %d, want %d with one line naming %q\n%s", bad.dir, o.code, exitUsage, bad.want, o.stderr)
		}
	}
}

func readExploreDoc(t *testing.T, dir string) results.Document {
	t.Helper()
	doc, err := rundir.ReadDocument(dir)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func writeExploreDoc(t *testing.T, dir string, doc results.Document) {
	t.Helper()
	if err := rundir.WriteDocument(dir, doc); err != nil {
		t.Fatal(err)
	}
}
