package reports_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// TestHTMLOfClientRuns: a page of client mode's runs speaks of a client
// and its half of the contract, in the runs' own currency, and draws no
// timeline key (its findings have no timeline).
func TestHTMLOfClientRuns(t *testing.T) {
	rs := []scenarios.Result{
		{Strategy: "stripe-go", Scenario: scenarios.ClientScenario("stripe"), Seed: 1, Verdict: scenarios.Fail, Service: true,
			Currency: "usd", Overcharged: 2700, Anomalies: map[check.Anomaly]int{check.ToldFailedCharged: 1},
			Findings: []check.Finding{{Anomaly: check.ToldFailedCharged, Account: "acct-op-01", Detail: "op-01 was told failed"}}},
		{Strategy: "stripe-node", Scenario: scenarios.ClientScenario("stripe"), Seed: 1, Verdict: scenarios.Pass, Service: true, Currency: "usd"},
	}
	var b strings.Builder
	if err := reports.WriteHTML(&b, results.NewDocument(rs, results.NewLatencies(), "client", time.Now())); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"Your client broke in 1 of 2 runs", "<th>client</th>", "27.00 USD overcharged",
		"your client needs a fix", "Runs where your client broke a rule of its half"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page has no %q", want)
		}
	}
	for _, not := range []string{"Your service", "EUR", "How to read a timeline"} {
		if strings.Contains(page, not) {
			t.Errorf("a client's page says %q", not)
		}
	}
}

// TestMarkdownOfClientRuns: the Markdown report of client runs counts
// runs and heads its rows "client".
func TestMarkdownOfClientRuns(t *testing.T) {
	rs := []scenarios.Result{{Strategy: "openai-node", Scenario: scenarios.ClientScenario("json"), Seed: 1, Verdict: scenarios.Fail,
		Service: true, Anomalies: map[check.Anomaly]int{check.RetryWithoutKey: 2}}}
	var b strings.Builder
	if err := reports.WriteMarkdown(&b, results.NewDocument(rs, results.NewLatencies(), "client", time.Now())); err != nil {
		t.Fatal(err)
	}
	if md := b.String(); !strings.Contains(md, "# idemchaos: ❌ 1 run failed") || !strings.Contains(md, "| client | client/json |") {
		t.Errorf("markdown:\n%s", md)
	}
}
