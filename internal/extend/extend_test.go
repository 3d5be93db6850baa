package extend_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/conformance"
	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
	"github.com/idemchaos/idemchaos/targets/strategy"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// manyCharges is the added anomaly: a key charged more than twice.
var manyCharges = check.Register(check.Definition{
	Anomaly: "many_charges", Short: "mc", Kind: check.KindMoney,
	Title: "Many charges: one key charged three times or more",
	What:  "The ledger holds three charges or more for one key: a retry storm's money.",
	Why:   "Every duplicate of the key was executed: there is no key layer.",
	Avoid: "Claim the key atomically with the charge (pg-tx).",
	Cause: "Nothing remembers the key between its requests.",
	Lesson: check.Lesson{Scenario: "concurrent-duplicates", Strategy: "no-layer",
		Shows: "every duplicate of the burst charges"},
	Find: func(in check.Input) []check.Finding {
		byKey := map[string][]string{}
		for _, c := range in.Ledger.Charges {
			byKey[c.Key] = append(byKey[c.Key], c.ID)
		}
		var out []check.Finding
		for key, ids := range byKey {
			if len(ids) > 2 {
				out = append(out, check.Finding{Key: key, Charges: ids, Detail: fmt.Sprintf("%d charges for one key", len(ids))})
			}
		}
		return out
	},
})

// The added strategy: no key layer, under a name of its own, declaring
// both anomalies in concurrent-duplicates and nothing elsewhere.
func init() {
	strategy.Register(design.Info{Name: "no-layer", Mechanism: "no idempotency layer, added by its definition",
		Flaw: "every duplicate charges", ReplayFrom: design.ReplayNowhere,
		Fails: design.Declared{"concurrent-duplicates": {"double_charge", "many_charges"}}},
		func(d strategy.Deps) strategy.Strategy {
			s, err := strategy.New(design.Baseline, d)
			if err != nil {
				panic(err)
			}
			return s
		})
}

var services *provision.Services

func TestMain(m *testing.M) { os.Exit(provisiontest.Main(m, &services)) }

// TestAddedByDefinitionAlone: the registered strategy runs through the
// engine like a built-in one, the registered anomaly is found in its cell,
// the cell is judged as its definition declares, and every catalog and
// report knows both.
func TestAddedByDefinitionAlone(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tp, err := fault.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	b, err := engine.NewBuiltin(ctx, engine.Env{PostgresDSN: provisiontest.Database(t, services), RedisURL: services.RedisURL, Toxiproxy: tp})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	res, _, err := engine.Run(ctx, b, scenarios.Cell{Strategy: "no-layer", Scenario: "concurrent-duplicates", Seed: 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != scenarios.Fail || res.Anomalies[manyCharges] == 0 || !res.AsExpected {
		t.Fatalf("verdict %s, anomalies %v, as declared %v", res.Verdict, res.Anomalies, res.AsExpected)
	}
	if got := scenarios.Expected("no-layer", "concurrent-duplicates", api.IETF); len(got) != 2 {
		t.Errorf("declared: %v", got)
	}
	if conformance.ClassOf(manyCharges) != conformance.BreaksMoney || reports.Explain(manyCharges).Title == "" {
		t.Error("the conformance table or the explanations do not know it")
	}
	doc := results.NewDocument([]scenarios.Result{res}, results.NewLatencies(), "test", time.Now())
	var md, html bytes.Buffer
	if err := reports.WriteMarkdown(&md, doc); err != nil {
		t.Fatal(err)
	}
	if err := reports.WriteHTML(&html, doc); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"no-layer", "mc `many_charges`", "caught as declared"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the Markdown report does not say %q:\n%s", want, md.String())
		}
	}
	if !strings.Contains(html.String(), "Many charges: one key charged three times or more") {
		t.Error("the HTML report does not explain the added anomaly")
	}
	var cat bytes.Buffer
	if err := reports.WriteCatalogMarkdown(&cat); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"`no-layer`", "`many_charges`", "`mc`"} {
		if !strings.Contains(cat.String(), want) {
			t.Errorf("the catalog does not list %s", want)
		}
	}
}
