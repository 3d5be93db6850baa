package workload_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/sim/workload"
)

func op(id, stage, after int) workload.Op {
	return workload.Op{ID: id, Key: "k", Account: "a", Amount: 1, Currency: "EUR", Group: -1, After: after, MaxTries: 1, Stage: stage}
}

// TestStageSplitsThePlan: each stage holds its ops in plan order, their
// waits rebased onto the stage (a wait on an earlier stage is met by the
// time the stage starts), and the top-ups paid before it.
func TestStageSplitsThePlan(t *testing.T) {
	p := workload.Plan{Nonce: 9, Ops: []workload.Op{op(0, 0, -1), op(1, 0, 0), op(2, 1, 0), op(3, 1, 2), op(4, 2, 3)},
		TopUps: []workload.TopUp{{Stage: 1, Account: "a", Amount: 5}, {Stage: 2, Account: "b", Amount: 7}}}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if n := p.Stages(); n != 3 {
		t.Fatalf("Stages() = %d; want 3", n)
	}
	one, tops := p.Stage(1)
	if len(one.Ops) != 2 || one.Ops[0].ID != 2 || one.Ops[0].After != -1 || one.Ops[1].ID != 3 || one.Ops[1].After != 0 || one.Nonce != 9 {
		t.Fatalf("stage 1: %+v", one.Ops)
	}
	if want := []workload.TopUp{{Stage: 1, Account: "a", Amount: 5}}; !reflect.DeepEqual(tops, want) {
		t.Fatalf("stage 1 top-ups %+v; want %+v", tops, want)
	}
	if zero, tops := p.Stage(0); len(zero.Ops) != 2 || zero.Ops[1].After != 0 || tops != nil {
		t.Fatalf("stage 0: %+v, %+v", zero.Ops, tops)
	}
	if (workload.Plan{Ops: []workload.Op{op(0, 0, -1)}}).Stages() != 1 {
		t.Fatal("a plan without stages is one stage")
	}
}

func TestStagesValidate(t *testing.T) {
	for want, p := range map[string]workload.Plan{
		"stage order":         {Ops: []workload.Op{op(0, 1, -1), op(1, 0, -1)}},
		"stage 64 not in":     {Ops: []workload.Op{op(0, workload.MaxStages, -1)}},
		"funds between":       {Ops: []workload.Op{op(0, 0, -1)}, TopUps: []workload.TopUp{{Stage: 0, Account: "a", Amount: 1}}},
		"no account":          {Ops: []workload.Op{op(0, 0, -1)}, TopUps: []workload.TopUp{{Stage: 1, Amount: 1}}},
		"not a positive":      {Ops: []workload.Op{op(0, 0, -1)}, TopUps: []workload.TopUp{{Stage: 1, Account: "a"}}},
		"top-ups; at most 64": {Ops: []workload.Op{op(0, 0, -1)}, TopUps: make([]workload.TopUp, 65)},
	} {
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v; want an error containing %q", p, err, want)
		}
	}
}
