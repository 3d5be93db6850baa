package scenarios

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/history"
)

func TestNewTimingTakesTheMedian(t *testing.T) {
	got, err := NewTiming([]time.Duration{300 * time.Millisecond, 10 * time.Millisecond, 280 * time.Millisecond, 2 * time.Second, 310 * time.Millisecond}, 5)
	if err != nil || got.Charge != 300*time.Millisecond || len(got.Samples) != 5 {
		t.Fatalf("timing %+v, %v; want the median 300ms of 5", got, err)
	}
	if _, err := NewTiming([]time.Duration{time.Second, time.Second}, 4); err == nil || !strings.Contains(err.Error(), "only 2 of the 4 charges sent to measure the service were answered 2xx (3 of 5 needed)") {
		t.Fatalf("err %v; want too few answered", err)
	}
}

func bareService() External {
	return External{Name: "shop", URLs: []string{"http://127.0.0.1:1"}, LedgerQuery: "q", ClaimTimeout: DefaultClaimTimeout}
}

// TestPrepareAdaptsToTheServiceTiming: without the failpoint protocol,
// client-timeout-retry times its client out inside the service's measured
// charge, says so, and is skipped with the reason when it was not
// measured or the charge is too fast to time out from outside.
func TestPrepareAdaptsToTheServiceTiming(t *testing.T) {
	e := bareService()
	skip := func(timing *Timing) string {
		_, _, err := Prepare(Cell{Scenario: "client-timeout-retry", Seed: 1, Target: &e, Timing: timing})
		var s *SkipError
		if !errors.As(err, &s) {
			t.Fatalf("timing %+v: err %v, want a SkipError", timing, err)
		}
		return s.Reason
	}
	if why := skip(nil); !strings.Contains(why, "measured first") {
		t.Errorf("unmeasured: %q", why)
	}
	if why := skip(&Timing{Charge: 4 * time.Millisecond, Samples: make([]time.Duration, 5)}); !strings.Contains(why, "charges in 4ms (median of 5): too fast") ||
		!strings.Contains(why, "--failpoints") {
		t.Errorf("too fast: %q", why)
	}
	c, plan, err := Prepare(Cell{Scenario: "client-timeout-retry", Seed: 1, Target: &e, Timing: &Timing{Charge: 300 * time.Millisecond, Samples: make([]time.Duration, 5)}})
	if err != nil {
		t.Fatal(err)
	}
	want := client.Policy{PerTry: 100 * time.Millisecond, Backoff: 30 * time.Millisecond, MaxBackoff: 75 * time.Millisecond}
	sc, _ := c.Definition()
	if c.Adapted == nil || c.Adapted.Policy == nil || *c.Adapted.Policy != want || c.ClientPolicy(sc) != want {
		t.Fatalf("adapted %+v; want policy %+v", c.Adapted, want)
	}
	if len(c.Adapted.Notes) != 1 || !strings.Contains(c.Adapted.Notes[0], "adapted to the service's 300ms charge (median of 5, measured first)") ||
		!strings.Contains(c.Adapted.Notes[0], "per-try timeout 100ms") {
		t.Errorf("notes %q", c.Adapted.Notes)
	}
	for _, f := range plan.Faults() {
		if !f.Inject.IsZero() {
			t.Fatalf("op %d keeps its in-target delay %s", f.Op, f.Inject)
		}
	}
	b, _ := json.Marshal(c)
	var back Cell
	if err := json.Unmarshal(b, &back); err != nil || back.Timing == nil || back.Adapted == nil || back.ClientPolicy(sc) != want {
		t.Fatalf("saved and read back: %s (%v)", b, err)
	}
	e.Failpoints = true
	if c, _, err := Prepare(Cell{Scenario: "client-timeout-retry", Seed: 1, Target: &e}); err != nil || c.Adapted != nil || c.NeedsTiming() {
		t.Fatalf("with the protocol: adapted %+v, %v; want the scenario as built in", c.Adapted, err)
	}
}

// TestPrepareSaysWhatBecameOfTheFaults: without the protocol, in-target
// delays are left out and store faults placed from outside, in a note each.
func TestPrepareSaysWhatBecameOfTheFaults(t *testing.T) {
	e := bareService()
	c, _, err := Prepare(Cell{Scenario: "retry-storm", Seed: 1, Target: &e})
	if err != nil || c.Adapted == nil || len(c.Adapted.Notes) != 1 || !strings.Contains(c.Adapted.Notes[0], "in-target faults left out: delay:300ms@before-commit inside the service needs --failpoints") {
		t.Fatalf("retry-storm: %+v, %v", c.Adapted, err)
	}
	e.PostgresProxy, e.ClaimTimeout = "shop-pg", 250*time.Millisecond
	c, plan, err := Prepare(Cell{Scenario: "slow-charge", Seed: 1, Target: &e})
	if err != nil || c.Adapted == nil || !strings.Contains(strings.Join(c.Adapted.Notes, "|"), "500ms of Postgres latency on the shop-pg proxy from the faulted request's start, for 500ms, from outside (2 requests: at before-commit needs --failpoints)") {
		t.Fatalf("slow-charge: %+v, %v", c.Adapted, err)
	}
	if n := len(plan.Faults()); n != 2 || plan.Faults()[0].Inject.String() != "pg-latency:500ms@before-commit" {
		t.Fatalf("slow-charge keeps %d faults: %+v", n, plan.Faults())
	}
	c, _, err = Prepare(Cell{Scenario: "db-fault-mid-request", Seed: 1, Target: &e})
	if err != nil || c.Adapted == nil || !strings.Contains(c.Adapted.Notes[0], "Postgres cuts on the shop-pg proxy placed from outside, for the whole faulted request") {
		t.Fatalf("db-fault-mid-request: %+v, %v", c.Adapted, err)
	}
	if c, _, err := Prepare(Cell{Scenario: "dropped-response", Seed: 1, Target: &e}); err != nil || c.Adapted != nil {
		t.Fatalf("dropped-response needs no adapting: %+v, %v", c.Adapted, err)
	}
}

// TestJudgeAdaptedRunMustOutlastTheClient: an adapted client-timeout-retry
// passes only when a try timed out inside the charge and a retry of its key
// got the answer; the notes reach the result.
func TestJudgeAdaptedRunMustOutlastTheClient(t *testing.T) {
	e := bareService()
	c, plan, err := Prepare(Cell{Scenario: "client-timeout-retry", Seed: 1, Target: &e, Timing: &Timing{Charge: 300 * time.Millisecond, Samples: make([]time.Duration, 5)}})
	if err != nil {
		t.Fatal(err)
	}
	op := plan.Ops[0]
	try := func(n int, call time.Duration) history.Attempt {
		return history.Attempt{ID: client.AttemptID(op.ID, n), Op: op.ID, Try: n, Key: op.Key, Account: op.Account, Amount: op.Amount,
			Fingerprint: "f", Call: call, Return: call + 5*time.Millisecond}
	}
	acked := try(2, 400*time.Millisecond)
	acked.Outcome, acked.Status, acked.ChargeID, acked.Body = history.Acked, 201, "ch_1", `{"id":"ch_1"}`
	ledger := history.Ledger{Charges: []history.Charge{{ID: "ch_1", Key: op.Key, Account: op.Account, Amount: op.Amount, AttemptID: client.AttemptID(op.ID, 1), Seq: 1}}}
	fast := try(1, 0)
	fast.Outcome, fast.Status, fast.ChargeID, fast.Body = history.Acked, 201, "ch_1", `{"id":"ch_1"}`
	res := Judge(Record{Cell: c, Plan: plan, Obs: Observation{History: history.History{Attempts: []history.Attempt{fast, acked}}, Ledger: ledger}})
	if res.Verdict != Inconclusive || !strings.Contains(strings.Join(res.Assumptions, ";"), "nothing outlasted the client") {
		t.Fatalf("no timeout: verdict %s %q; want inconclusive", res.Verdict, res.Assumptions)
	}
	slow := try(1, 0)
	slow.Outcome, slow.Err, slow.Return = history.Indeterminate, "timeout: context deadline exceeded", 100*time.Millisecond
	res = Judge(Record{Cell: c, Plan: plan, Obs: Observation{History: history.History{Attempts: []history.Attempt{slow, acked}}, Ledger: ledger}})
	if res.Verdict != Pass || len(res.Adapted) != 1 || !strings.Contains(res.Adapted[0], "300ms charge") {
		t.Fatalf("outlasted: verdict %s, assumptions %q, findings %+v, adapted %q; want a pass that says how it was adapted",
			res.Verdict, res.Assumptions, res.Findings, res.Adapted)
	}
}
