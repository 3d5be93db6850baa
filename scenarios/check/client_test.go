package check_test

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

var clientOps = []history.Operation{
	{ID: "op-01", Account: "acct-op-01", Amount: 1200, Currency: "usd"},
	{ID: "op-02", Account: "acct-op-02", Amount: 3400, Currency: "usd"},
}

const ms = time.Millisecond

// req is a received request of op: try, key, body, arrival and answer
// (ms since the start), the status the client got, and its Retry-After.
func req(id, op string, try int, key, body string, arrived, answered time.Duration, status, retryAfter int) history.Received {
	return history.Received{ID: id, Op: op, Try: try, Key: key, Body: body, Arrived: arrived * ms, Answered: answered * ms,
		Status: status, RetryAfter: retryAfter}
}

func charge(id, account string, amount int64) history.Charge {
	return history.Charge{ID: id, Account: account, Amount: amount}
}

// kept is a client that kept its key through a dropped answer and a 409,
// backed off, and told the truth: the clean run every case below breaks.
func kept() history.ClientRun {
	return history.ClientRun{Ops: clientOps,
		Received: []history.Received{
			req("c1", "op-01", 1, "k1", "b1", 0, 10, 0, 0),
			req("c2", "op-01", 2, "k1", "b1", 300, 305, 409, 0),
			req("c3", "op-01", 3, "k1", "b1", 900, 910, 201, 0),
			req("c4", "op-02", 1, "k2", "b2", 1000, 1001, 503, 1),
			req("c5", "op-02", 2, "k2", "b2", 2100, 2110, 201, 0),
		},
		Told:    []history.Told{{Op: "op-01", Outcome: history.Succeeded}, {Op: "op-02", Outcome: history.Succeeded}},
		Charges: []history.Charge{charge("ch_1", "acct-op-01", 1200), charge("ch_2", "acct-op-02", 3400)},
	}
}

func TestClientKeptHalfPasses(t *testing.T) {
	rep := check.CheckClient(kept(), api.OptionalKey)
	if rep.Failed() || len(rep.Findings) > 0 {
		t.Fatalf("a client that kept its half: %+v", rep.Findings)
	}
	if !slices.Equal(slices.Sorted(maps.Keys(rep.Counts)), slices.Sorted(slices.Values(check.ClientAnomalies()))) {
		t.Fatalf("counts %v: want every client anomaly, zero included", rep.Counts)
	}
}

func TestClientAnomalies(t *testing.T) {
	cases := []struct {
		name   string
		want   check.Anomaly
		money  int64
		change func(*history.ClientRun)
	}{
		{"a new key on the retry after a dropped answer", check.RetryNewKey, 1200, func(r *history.ClientRun) {
			r.Received[1].Key, r.Received[2].Key = "k1b", "k1c"
			r.Received[1].Status = 201
			r.Charges = append(r.Charges, charge("ch_3", "acct-op-01", 1200))
		}},
		{"a retry without a key", check.RetryWithoutKey, 0, func(r *history.ClientRun) {
			r.Received[4].Key = ""
		}},
		{"told failed while charged", check.ToldFailedCharged, 1200, func(r *history.ClientRun) {
			r.Told[0] = history.Told{Op: "op-01", Outcome: history.Failed, Detail: "network error, retry?"}
		}},
		{"told succeeded, nothing charged", check.ToldSucceededUncharged, 3400, func(r *history.ClientRun) {
			r.Charges = r.Charges[:1]
		}},
		{"one key for two operations", check.KeyReused, 0, func(r *history.ClientRun) {
			r.Received[3].Key, r.Received[4].Key = "k1", "k1"
		}},
		{"the body changed under the key", check.BodyChanged, 0, func(r *history.ClientRun) {
			r.Received[2].Body = "b1 at 900"
		}},
		{"a mismatch retried unchanged", check.RetryAfterRefusal, 0, func(r *history.ClientRun) {
			r.Received[1].Status = 422
		}},
		{"a 409 retried at once", check.NoBackoff, 0, func(r *history.ClientRun) {
			r.Received[2].Arrived = 320 * ms
		}},
		{"a 503 retried before its Retry-After", check.RetryAfterIgnored, 0, func(r *history.ClientRun) {
			r.Received[4].Arrived = 1500 * ms
		}},
		{"a 503 retried early on its own connection, closed since", check.RetryAfterIgnored, 0, func(r *history.ClientRun) {
			r.Received[3].Conn, r.Received[3].ConnClosed = "127.0.0.1:4001", 1600*ms
			r.Received[4].Conn, r.Received[4].Arrived = "127.0.0.1:4001", 1500*ms
		}},
		{"a 503 retried early on a new connection, the first still open", check.RetryAfterIgnored, 0, func(r *history.ClientRun) {
			r.Received[3].Conn, r.Received[3].ConnClosed = "127.0.0.1:4001", 1600*ms
			r.Received[4].Conn, r.Received[4].Arrived = "127.0.0.1:4002", 1500*ms
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run := kept()
			c.change(&run)
			rep := check.CheckClient(run, api.OptionalKey)
			for _, a := range check.ClientAnomalies() {
				if want := map[bool]int{true: 1}[a == c.want]; rep.Counts[a] != want {
					t.Errorf("%s: %d, want %d (findings %+v)", a, rep.Counts[a], want, rep.Findings)
				}
			}
			if len(rep.Findings) == 1 && rep.Findings[0].Money != c.money {
				t.Errorf("money at stake %d, want %d", rep.Findings[0].Money, c.money)
			}
		})
	}
}

func TestClientRetryAfterMissingKeyOnlyUnderARequiredKey(t *testing.T) {
	run := kept()
	for i := range run.Received[:3] {
		run.Received[i].Key = ""
	}
	run.Received[0].Status, run.Received[1].Status = 400, 400
	if n := check.CheckClient(run, api.IETF).Counts[check.RetryAfterRefusal]; n != 1 {
		t.Errorf("a 400 missing-key answer retried bare under ietf: %d findings, want 1", n)
	}
	if n := check.CheckClient(run, api.OptionalKey).Counts[check.RetryAfterRefusal]; n != 0 {
		t.Errorf("under a profile that takes a charge without a key, 400 is not its refusal: %d findings", n)
	}
}

func TestClientAnomaliesAreDefined(t *testing.T) {
	for _, d := range check.ClientDefinitions() {
		if check.Define(d.Anomaly).Title != d.Title || d.Short == "" || d.What == "" || d.Avoid == "" || d.Cause == "" {
			t.Errorf("%s: incomplete or not found by Define: %+v", d.Anomaly, check.Define(d.Anomaly))
		}
		if slices.Contains(check.Anomalies(), d.Anomaly) {
			t.Errorf("%s is counted in a server's run", d.Anomaly)
		}
	}
}

// TestClientTimedOutOnARetryAfter: a client that gave up on a 503 (its
// timeout passed on a loaded machine) closed the connection the answer
// came on and never read the Retry-After; its retry on a new connection
// after its own back-off is no retry_after_ignored.
func TestClientTimedOutOnARetryAfter(t *testing.T) {
	run := kept()
	run.Received[3].Conn, run.Received[3].ConnClosed = "127.0.0.1:4001", 1002*ms
	run.Received[4].Conn, run.Received[4].Arrived = "127.0.0.1:4002", 1300*ms
	if rep := check.CheckClient(run, api.OptionalKey); rep.Failed() {
		t.Fatalf("a client that never read the answer: %+v", rep.Findings)
	}
}
