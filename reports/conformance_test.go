package reports_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/conformance"
	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// TestMarkdownTableStableAcrossRuns: an anomaly whose finding depends on
// timing is written "(timing)", without the seeds that showed it, so two
// runs in which it showed in 2 and in 3 seeds of 3 write the same table;
// an anomaly that does not depend on timing keeps its counts.
func TestMarkdownTableStableAcrossRuns(t *testing.T) {
	targets, err := conformance.Lookup([]string{"fiber-redis-2"})
	if err != nil {
		t.Fatal(err)
	}
	rows := []conformance.RowSpec{{Target: targets[0], Profile: "ietf"}}
	scens := []string{"concurrent-duplicates", "payload-mismatch"}
	doc := func(raced int) string {
		var rs []scenarios.Result
		for seed := 1; seed <= 3; seed++ {
			race := map[check.Anomaly]int{}
			if seed <= raced {
				race[check.DoubleCharge] = 1
			}
			verdict := scenarios.Pass
			if len(race) > 0 {
				verdict = scenarios.Fail
			}
			rs = append(rs,
				scenarios.Result{Strategy: rows[0].Name(), Scenario: scens[0], Seed: uint64(seed), Verdict: verdict, Anomalies: race},
				scenarios.Result{Strategy: rows[0].Name(), Scenario: scens[1], Seed: uint64(seed), Verdict: scenarios.Fail,
					Anomalies: map[check.Anomaly]int{check.LostAck: 1, check.MismatchExecuted: 1}})
		}
		var b bytes.Buffer
		if err := reports.WriteConformance(&b, conformance.NewTable(rows, scens, 3, rs, nil), reports.ConformanceMeta{Command: "test", Took: time.Second}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	two, three := doc(2), doc(3)
	if two != three {
		t.Errorf("a timing-dependent double charge in 2 and in 3 seeds of 3 wrote two documents")
	}
	for _, want := range []string{"breaks money: dc (timing)", "la 3/3, me 3/3"} {
		if !strings.Contains(three, want) {
			t.Errorf("the table lacks %q", want)
		}
	}
}

// TestInconclusiveCellsExplained: an inconclusive cell that Inconclusives
// explains gets its sentence in the document; one that nothing explains
// is listed by Unexplained (the command then fails) and marked in the
// document.
func TestInconclusiveCellsExplained(t *testing.T) {
	targets, err := conformance.Lookup([]string{"node-idempotency-redis"})
	if err != nil {
		t.Fatal(err)
	}
	rows := []conformance.RowSpec{{Target: targets[0], Profile: "stripe"}, {Target: targets[0], Profile: "ietf"}}
	scens := []string{"db-fault-mid-request"}
	var rs []scenarios.Result
	for _, r := range rows {
		rs = append(rs, scenarios.Result{Strategy: r.Name(), Scenario: scens[0], Seed: 1, Verdict: scenarios.Inconclusive})
	}
	table := conformance.NewTable(rows, scens, 1, rs, nil)
	var b bytes.Buffer
	if err := reports.WriteConformance(&b, table, reports.ConformanceMeta{Command: "test"}); err != nil {
		t.Fatal(err)
	}
	doc := b.String()
	u := conformance.ExplainInconclusive("node-idempotency-redis", "stripe", scens[0])
	if u == nil || !strings.Contains(doc, "- node-idempotency-redis.stripe / db-fault-mid-request: "+u.Text) {
		t.Errorf("the stripe cell's explanation is missing from the document")
	}
	if !strings.Contains(doc, "**UNEXPLAINED** node-idempotency-redis.ietf / db-fault-mid-request") {
		t.Errorf("the ietf cell, which nothing explains, is not marked")
	}
	if got := table.Unexplained(); len(got) != 1 || got[0] != "node-idempotency-redis.ietf / db-fault-mid-request: inconclusive" {
		t.Errorf("Unexplained = %q, want the ietf cell alone", got)
	}
}

// TestStandInsSaid: a row on a stand-in store gets the Stand-ins section,
// which names the stand-in and every difference its catalog entry lists,
// and an anomaly whose finding depends on one is marked in the table; a
// table without such a row has no section.
func TestStandInsSaid(t *testing.T) {
	write := func(name string, rs []scenarios.Result, scens []string) string {
		targets, err := conformance.Lookup([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		rows := []conformance.RowSpec{{Target: targets[0], Profile: "ietf"}}
		var b bytes.Buffer
		if err := reports.WriteConformance(&b, conformance.NewTable(rows, scens, 1, rs, nil), reports.ConformanceMeta{Command: "test"}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	scens := []string{"concurrent-duplicates"}
	raced := []scenarios.Result{{Strategy: "powertools-dynamodb.ietf", Scenario: scens[0], Seed: 1, Verdict: scenarios.Fail,
		Anomalies: map[check.Anomaly]int{check.DoubleCharge: 1}}}
	doc := write("powertools-dynamodb", raced, scens)
	for _, want := range append([]string{"## Stand-ins", "runs on dynalite 4.0.0", "dc (timing, stand-in)"}, conformance.Dynalite.Differences...) {
		if !strings.Contains(doc, want) {
			t.Errorf("the document lacks %q", want)
		}
	}
	if doc := write("powertools-redis", nil, scens); strings.Contains(doc, "## Stand-ins") {
		t.Errorf("a table with no row on a stand-in has a Stand-ins section")
	}
}
