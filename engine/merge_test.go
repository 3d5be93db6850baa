package engine_test

import (
	"testing"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/server"
)

func TestMergeAttachesServerViewsAndExposesHiddenAttempts(t *testing.T) {
	attempts := []history.Attempt{
		{ID: "o0-t1", Key: "k", Op: 0, Try: 1, Amount: 100},
		{ID: "o1-t1", Key: "k", Op: 1, Try: 1, Amount: 100},
	}
	entries := []server.Entry{
		{AttemptID: "o0-t1", Key: "k", Start: 1, End: 5, Status: 201, ChargeID: "ch_1"},
		{AttemptID: "o0-t1", Key: "k", Start: 6, End: 9, Status: 201, ChargeID: "ch_2"}, // a transport re-send
		{AttemptID: "zz", Key: "k", Start: 7, End: 8, Status: 201},                      // never sent by the client
	}
	got, hidden := engine.Merge(attempts, entries)
	if hidden != 2 || len(got) != 4 {
		t.Fatalf("hidden %d, %d attempts; want 2 hidden among 4", hidden, len(got))
	}
	if got[0].Server == nil || got[0].Server.ChargeID != "ch_1" || got[1].Server != nil {
		t.Fatalf("server views %+v %+v", got[0].Server, got[1].Server)
	}
	h := got[2]
	if !h.Hidden || h.Op != 0 || h.Amount != 100 || h.Server.ChargeID != "ch_2" || h.Outcome != history.Indeterminate {
		t.Fatalf("hidden attempt %+v", h)
	}
}
