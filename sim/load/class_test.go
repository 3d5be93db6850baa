package load

import (
	"testing"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
)

func workloadPlan(ops ...workload.Op) workload.Plan { return workload.Plan{Ops: ops} }

func TestClass(t *testing.T) {
	cases := []struct {
		a    history.Attempt
		want string
	}{
		{history.Attempt{Status: 201, Outcome: history.Acked}, ClassOK},
		{history.Attempt{Status: 200, Outcome: history.Acked, Replayed: true}, ClassOK},
		{history.Attempt{Status: 409, Outcome: history.Rejected}, ClassConflict},
		{history.Attempt{Status: 422, Outcome: history.Rejected}, Class4xx},
		{history.Attempt{Status: 402, Outcome: history.Rejected}, Class4xx},
		{history.Attempt{Status: 503, Outcome: history.Indeterminate}, Class5xx},
		{history.Attempt{Outcome: history.NotSent, Err: "dial tcp: connection refused"}, ClassRefused},
		{history.Attempt{Outcome: history.Indeterminate, Err: "timeout: context deadline exceeded"}, ClassTimeout},
		{history.Attempt{Outcome: history.Indeterminate, Err: "read: connection reset by peer"}, ClassReset},
		{history.Attempt{Outcome: history.Indeterminate, Err: `Post "http://x": EOF`}, ClassReset},
		{history.Attempt{Outcome: history.Indeterminate, Err: "run aborted"}, ClassOther},
	}
	for _, tc := range cases {
		if got := Class(tc.a); got != tc.want {
			t.Errorf("%+v: class %s, want %s", tc.a, got, tc.want)
		}
	}
}

func TestErrorsLeaveOutSuccessAndConflict(t *testing.T) {
	var ss []Sample
	for _, st := range []int{201, 200, 409, 409, 503, 400} {
		ss = append(ss, Sample{Attempt: history.Attempt{Status: st}})
	}
	ss = append(ss, Sample{Attempt: history.Attempt{Outcome: history.Indeterminate, Err: "timeout: x"}})
	got := Errors(ss)
	if len(got) != 3 || got[Class5xx] != 1 || got[Class4xx] != 1 || got[ClassTimeout] != 1 {
		t.Fatalf("errors %v", got)
	}
}
