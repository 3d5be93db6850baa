package engine

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// The opening burst counts, per replica of its first try, the ops that
// start with the traffic: not one that waits for another op, for a delay
// or for an earlier stage.
func TestOpeningBurst(t *testing.T) {
	op := func(replica, after, stage int, delay time.Duration) workload.Op {
		return workload.Op{After: after, Stage: stage, Delay: delay, Group: -1, Tries: []workload.Try{{Replica: replica}}}
	}
	plan := workload.Plan{Ops: []workload.Op{
		op(0, -1, 0, 0), op(0, -1, 0, 0), op(2, -1, 0, 0), // three at once
		op(1, 0, 0, 0),                 // after op 0
		op(1, -1, 1, 0),                // a later stage
		op(1, -1, 0, time.Millisecond), // delayed
		{After: -1, Group: -1},         // no planned try: replica 0
	}}
	if got, want := openingBurst(plan, 3), []int{3, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("openingBurst = %v; want %v", got, want)
	}
	if got := openingBurst(workload.Plan{}, 0); !slices.Equal(got, []int{0}) {
		t.Errorf("openingBurst of no replicas = %v; want one replica with none", got)
	}
}

// A plan that slows the Postgres link warms every connection of each
// replica's pool; any other only its opening burst.
func TestConnsAhead(t *testing.T) {
	op := func(inject api.Injection) workload.Op {
		return workload.Op{After: -1, Group: -1, MaxTries: 2, Tries: []workload.Try{{Inject: inject}, {Replica: 1}}}
	}
	plain := workload.Plan{Ops: []workload.Op{op(api.Injection{}), op(api.Injection{Action: api.Delay, Arg: 200 * time.Millisecond, Point: api.BeforeCommit})}}
	if got, want := connsAhead(plain, 2), []int{2, 0}; !slices.Equal(got, want) {
		t.Errorf("connsAhead without link latency = %v; want the opening burst %v", got, want)
	}
	slowed := workload.Plan{Ops: []workload.Op{op(api.Injection{}), op(api.Injection{Action: api.PGLatency, Arg: 500 * time.Millisecond, Point: api.BeforeCommit})}}
	for i, n := range connsAhead(slowed, 2) {
		if n != math.MaxInt {
			t.Errorf("connsAhead with pg-latency: replica %d warms %d; want its whole pool", i, n)
		}
	}
}
