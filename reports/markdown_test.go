package reports_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

func TestMarkdownContent(t *testing.T) {
	out := string(render(t, reports.WriteMarkdown, fixture()))
	if first, _, _ := strings.Cut(out, "\n"); first != "# idemchaos: ❌ 2 cells not as declared" {
		t.Errorf("title line %q", first)
	}
	for _, want := range []string{
		"| strategy | dropped-response | redis-fault-after-commit |\n|---|---|---|\n",
		"| none | ❌ fail 2/2 · dc=2 · exercised 1/2 | ✅ pass · ❗ not caught |",
		"| redis-setnx | ✅ pass · exercised 2/2 | ❌ fail 2/2 · dc=2 sd=3 |",
		"| pg-tx | ⚠️ inconclusive 1/2 · exercised 1/2 | ❌ fail 1/2 · sc=1 · ❗ unexpected |",
		"**12 runs**: 6 pass, 5 fail, 1 inconclusive; **4 not as declared**; 44.80 overcharged in all.",
		"## none / dropped-response: ❌ caught as declared\n\ndeclared: fails with `double_charge`\n",
		"  - `double_charge`: key k-1: 2 charges \\| amounts \\*12.50\\* and \\*12.50\\*",
		"  - repro: `idemchaos run --strategy pg-tx --scenario redis-fault-after-commit --seed 1`",
		"  - assumption not met: the fault did not fire: no response was dropped",
		"  - … 2 more findings in the JSON output",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "## redis-setnx / dropped") {
		t.Error("a passing cell got an evidence section")
	}
}

// TestMarkdownEscapesData checks that data cannot break the table or inject
// markup, and that code spans survive backticks.
func TestMarkdownEscapesData(t *testing.T) {
	r := scenarios.Result{Strategy: "a|b", Scenario: "*x*", Seed: 1, Verdict: scenarios.Fail,
		Anomalies: map[check.Anomaly]int{"double_charge": 1}, Repro: "run `x` ``y``",
		Findings: []check.Finding{{Anomaly: "double_charge", Detail: "<img src=x> [l](u) _e_ ~s~\nnext line"}}}
	out := string(render(t, reports.WriteMarkdown, results.Document{Results: []scenarios.Result{r}}))
	row := regexp.MustCompile(`(?m)^\| a.*$`).FindString(out)
	if cells := regexp.MustCompile(`(^|[^\\])\|`).FindAllString(row, -1); len(cells) != 3 {
		t.Errorf("row %q has %d unescaped pipes; want 3", row, len(cells))
	}
	for _, want := range []string{
		`\<img src=x\> \[l\](u) \_e\_ \~s\~ next line`,
		"repro: ``` run `x` ``y`` ```",
		`## a\|b / \*x\*`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
}

// TestMarkdownSaysWhatVaries: a cell whose strategy declares anomalies
// that show on some seeds only says so in its declaration, in Markdown as
// in the other formats.
func TestMarkdownSaysWhatVaries(t *testing.T) {
	r := res("innodb-select-for-update", "payload-mismatch", 1, scenarios.Fail, true)
	r.Anomalies = anoms("status_contract", 1)
	rs := []scenarios.Result{r}
	doc := results.Document{SchemaVersion: results.SchemaVersion, Tool: "idemchaos", Command: "matrix", Profile: "ietf",
		Seeds: []uint64{1}, Summary: results.Summarize(rs), Results: rs}
	out := string(render(t, reports.WriteMarkdown, doc))
	if want := "declared: must pass (may show `status_contract` on some seeds)"; !strings.Contains(out, want) {
		t.Errorf("the Markdown does not say %q:\n%s", want, out)
	}
}
