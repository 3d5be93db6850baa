package narrate

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// lessonRun is a client lesson's run: the dropped first try, then a retry
// under retryKey, answered with charge.
func lessonRun(retryKey, charge string, charges int) scenarios.ClientLessonRun {
	rec := scenarios.ClientRecord{Plan: scenarios.ClientLesson()}
	rec.Run.Received = []history.Received{
		{Op: "op-01", Try: 1, Key: "k1", Fault: string(workload.DropAfterCommit), Charge: "ch_1"},
		{Op: "op-01", Try: 2, Key: retryKey, Status: 201, Charge: charge},
	}
	rec.Run.Told = []history.Told{{Op: "op-01", Outcome: history.Succeeded}}
	for range charges {
		rec.Run.Charges = append(rec.Run.Charges, history.Charge{Account: "acct-op-01", Amount: 2700})
	}
	return scenarios.ClientLessonRun{Record: rec, Result: scenarios.Result{Anomalies: map[check.Anomaly]int{check.RetryNewKey: charges - 1}}}
}

// TestClientLessonTellsWhatItObserved: the same key and the replay, or a
// new key and the second charge, as the record holds them, never the
// keys' or charges' own ids.
func TestClientLessonTellsWhatItObserved(t *testing.T) {
	lines, doubled := ClientLesson(lessonRun("k1", "ch_1", 1))
	text := strings.Join(lines, "\n")
	for _, want := range []string{"27.00 usd from acct-op-01", "2. try 1: the client sends the charge with key A",
		"(charge 1) and commits; fault: the connection is reset", "4. try 2: the client sends it again with key A, the same key",
		"replays its stored answer, charge 1", "the client tells its user: succeeded", "7. one ledger charge on acct-op-01"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	if doubled || strings.Contains(text, "k1") || strings.Contains(text, "ch_1") {
		t.Errorf("doubled %v, or an id told:\n%s", doubled, text)
	}
	lines, doubled = ClientLesson(lessonRun("k2", "ch_2", 2))
	text = strings.Join(lines, "\n")
	for _, want := range []string{"with key B, a new one: to the server, another payment", "the server charges it: charge 2, answered 201",
		"DOUBLE CHARGE: 2 ledger charges on acct-op-01 for one payment, 27.00 usd taken too much (retry_new_key)"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	if !doubled {
		t.Error("two charges are not told as doubled")
	}
}
