package conformance_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/conformance"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

func anomaly(name string) check.Anomaly { return check.Anomaly(name) }

func result(row, sc string, v scenarios.Verdict, anomalies map[check.Anomaly]int) scenarios.Result {
	return scenarios.Result{Strategy: row, Scenario: sc, Verdict: v, Anomalies: anomalies}
}

// TestJudgeClasses: a money anomaly outranks a deviation; a deviation
// alone deviates; a seed that proved nothing makes a clean cell
// inconclusive; an anomaly in some seeds only is timing.
func TestJudgeClasses(t *testing.T) {
	dc := map[check.Anomaly]int{check.DoubleCharge: 2}
	sc := map[check.Anomaly]int{check.StatusContract: 1}
	both := map[check.Anomaly]int{check.StatusContract: 1, check.HeldDuplicate: 3, check.LostAck: 1}
	cases := []struct {
		name   string
		rs     []scenarios.Result
		class  conformance.Class
		timing bool
	}{
		{"pass", []scenarios.Result{result("r", "s", scenarios.Pass, nil)}, conformance.Pass, false},
		{"deviates", []scenarios.Result{result("r", "s", scenarios.Fail, sc)}, conformance.Deviates, false},
		{"money over deviation", []scenarios.Result{result("r", "s", scenarios.Fail, both)}, conformance.BreaksMoney, false},
		{"money in one seed of two", []scenarios.Result{result("r", "s", scenarios.Fail, dc), result("r", "s", scenarios.Pass, nil)}, conformance.BreaksMoney, true},
		{"inconclusive", []scenarios.Result{result("r", "s", scenarios.Inconclusive, nil)}, conformance.Inconclusive, false},
	}
	for _, c := range cases {
		got := conformance.Judge("r", "s", c.rs)
		if got.Class != c.class || got.Timing() != c.timing {
			t.Errorf("%s: class %s timing %v; want %s timing %v", c.name, got.Class, got.Timing(), c.class, c.timing)
		}
	}
}

// TestCompareVerdicts: the same verdicts compare equal; another class, a
// new or a lost anomaly is a difference; a timing-dependent anomaly may be
// absent, and its absence may lower the class.
func TestCompareVerdicts(t *testing.T) {
	want := parse(t, `
a.ietf x: breaks money (double_charge?, held_duplicate)
a.ietf y: deviates (status_contract)
a.ietf z: pass
a.ietf w: breaks money (double_charge?)
a.ietf v: skipped
`)
	same := parse(t, `
a.ietf x: breaks money (double_charge, held_duplicate)
a.ietf y: deviates (status_contract)
a.ietf z: pass
a.ietf w: pass
a.ietf v: skipped
`)
	if d := conformance.Compare(want, same); len(d) != 0 {
		t.Errorf("equal verdicts differ: %q", d)
	}
	lowered := parse(t, `
a.ietf x: deviates (held_duplicate)
a.ietf y: deviates (status_contract)
a.ietf z: pass
a.ietf w: breaks money (double_charge)
a.ietf v: skipped
`)
	if d := conformance.Compare(want, lowered); len(d) != 0 {
		t.Errorf("a missing timing-dependent anomaly counted: %q", d)
	}
	changed := parse(t, `
a.ietf x: breaks money (double_charge)
a.ietf y: breaks money (status_contract, lost_ack)
a.ietf z: deviates (status_contract)
a.ietf w: breaks money (double_charge)
`)
	d := conformance.Compare(want, changed)
	for _, line := range []string{"+ a.ietf x: breaks money (double_charge)", "+ a.ietf y: breaks money (status_contract, lost_ack)",
		"+ a.ietf z: deviates (status_contract)", "- a.ietf v: skipped"} {
		if !contains(d, line) {
			t.Errorf("difference lacks %q: %q", line, d)
		}
	}
	if contains(d, "+ a.ietf w: breaks money (double_charge)") {
		t.Errorf("w is as pinned: %q", d)
	}
}

func parse(t *testing.T, s string) []conformance.Verdict {
	t.Helper()
	vs, err := conformance.ReadVerdicts(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestCompareGolden: the golden file is read and compared as Compare
// does; an unreadable or malformed file is an error naming it.
func TestCompareGolden(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "verdicts.golden")
	got := []conformance.Verdict{{Row: "pg-tx.ietf", Scenario: "missing-key", Class: conformance.Pass}}
	if err := os.WriteFile(path, []byte("# pinned\npg-tx.ietf missing-key: pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if diff, err := conformance.CompareGolden(path, got); err != nil || len(diff) != 0 {
		t.Errorf("same verdicts: %v, %v", diff, err)
	}
	got[0].Class = conformance.BreaksMoney
	if diff, err := conformance.CompareGolden(path, got); err != nil || len(diff) != 2 {
		t.Errorf("a changed verdict: %v, %v", diff, err)
	}
	if _, err := conformance.CompareGolden(filepath.Join(dir, "absent"), got); err == nil {
		t.Error("a missing golden file compared")
	}
	if err := os.WriteFile(path, []byte("nonsense\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := conformance.CompareGolden(path, got); err == nil || !strings.Contains(err.Error(), path+": line 1") {
		t.Errorf("a malformed golden file: %v", err)
	}
}

// TestPowertoolsRedisLoadedRace: the cell a loaded machine moved in a make
// test (powertools-redis under concurrent-duplicates: a double charge and
// a 500 where 409 was due, both of the in-progress expiry's race) is as
// pinned, and each anomaly has its finding, marked timing-dependent.
func TestPowertoolsRedisLoadedRace(t *testing.T) {
	want := parse(t, "powertools-redis.ietf concurrent-duplicates: pass\n")
	got := parse(t, "powertools-redis.ietf concurrent-duplicates: breaks money (double_charge?, status_contract?)\n")
	if d := conformance.Compare(want, got); len(d) != 0 {
		t.Errorf("the loaded race's cell differs from its pin: %q", d)
	}
	for _, a := range []check.Anomaly{check.DoubleCharge, check.StatusContract} {
		if f := conformance.Explain("powertools-redis", "concurrent-duplicates", a); f == nil || !f.Timing {
			t.Errorf("%s: finding %+v; want one marked timing-dependent", a, f)
		}
	}
}
