package workload_test

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestNewKeyIsUUIDv4AndSeeded(t *testing.T) {
	a, b := workload.Seeded(7, "plan"), workload.Seeded(7, "plan")
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		k := workload.NewKey(a)
		if !uuidV4.MatchString(k) {
			t.Fatalf("key %q is not a UUIDv4", k)
		}
		if k2 := workload.NewKey(b); k2 != k {
			t.Fatalf("same seed gave %q and %q", k, k2)
		}
		if seen[k] {
			t.Fatalf("key %q drawn twice", k)
		}
		seen[k] = true
	}
}

func TestSeededStreamsAreIndependent(t *testing.T) {
	if workload.Seeded(1, "plan").Uint64() == workload.Seeded(1, "faults").Uint64() {
		t.Fatal("two components got the same stream")
	}
	if workload.Seeded(1, "plan").Uint64() == workload.Seeded(2, "plan").Uint64() {
		t.Fatal("two seeds got the same stream")
	}
}

func TestTryAtAndFaults(t *testing.T) {
	op := workload.Op{ID: 0, MaxTries: 4, Group: -1, After: -1,
		Tries: []workload.Try{{Replica: 1, Fault: "drop-response"}, {Replica: 2}}}
	if got := op.TryAt(1); got.Fault != "drop-response" || got.Replica != 1 {
		t.Fatalf("try 1: %+v", got)
	}
	if got := op.TryAt(4); got.Fault != "" || got.Replica != 2 {
		t.Fatalf("try 4: %+v; want the last replica and no fault", got)
	}
	plan := workload.Plan{Ops: []workload.Op{op}}
	if f := plan.Faults(); len(f) != 1 || f[0] != (workload.Fault{Op: 0, Try: 1, Fault: "drop-response"}) {
		t.Fatalf("faults %+v", f)
	}
}

func TestValidate(t *testing.T) {
	ok := workload.Op{ID: 0, MaxTries: 1, Group: -1, After: -1}
	cases := map[string]workload.Plan{
		"empty":       {},
		"same id":     {Ops: []workload.Op{{ID: 0, MaxTries: 1, After: -1}, {ID: 0, MaxTries: 1, After: -1}}},
		"long delay":  {Ops: []workload.Op{{ID: 0, MaxTries: 1, After: -1, Delay: time.Hour}}},
		"long lag":    {Ops: []workload.Op{{ID: 0, MaxTries: 1, After: -1, Lag: time.Hour}}},
		"lag < 0":     {Ops: []workload.Op{{ID: 0, MaxTries: 1, After: -1, Lag: -1}}},
		"no tries":    {Ops: []workload.Op{{ID: 0, MaxTries: 0, After: -1}}},
		"waits ahead": {Ops: []workload.Op{{ID: 0, MaxTries: 1, After: 0}}},
	}
	for name, p := range cases {
		if p.Validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := (workload.Plan{Ops: []workload.Op{ok}}).Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestRekeyIsFreshAndKeepsSharing(t *testing.T) {
	type Op = workload.Op
	p := workload.Plan{Ops: []Op{{ID: 0, Key: "a", Amount: 1}, {ID: 1, Key: "a", Amount: 1}, {ID: 2, Key: "b", Amount: 2}, {ID: 3, Amount: 3}}}
	r := p.Rekey(7)
	if r.Nonce != 7 || r.Ops[0].Key == "a" || r.Ops[0].Key != r.Ops[1].Key || r.Ops[2].Key == r.Ops[0].Key || r.Ops[3].Key != "" {
		t.Fatalf("rekeyed %+v", r.Ops)
	}
	if p.Ops[0].Key != "a" {
		t.Fatal("Rekey changed the plan it was given")
	}
	if again := p.Rekey(7); again.Ops[2].Key != r.Ops[2].Key {
		t.Fatal("the same nonce gave other keys")
	}
	if other := p.Rekey(8); other.Ops[0].Key == r.Ops[0].Key {
		t.Fatal("another nonce gave the same keys")
	}
	if !uuidV4.MatchString(r.Ops[0].Key) {
		t.Fatalf("key %q is not a UUIDv4", r.Ops[0].Key)
	}
	for i := range p.Ops {
		if r.Ops[i].Amount != p.Ops[i].Amount || r.Ops[i].ID != p.Ops[i].ID {
			t.Fatalf("op %d changed beyond its key", i)
		}
	}
}

// TestPlanJSON: a try's in-target fault is written as its string and left
// out when there is none, as when it was a string field; the plan reads
// back equal, and one with a malformed fault does not read.
func TestPlanJSON(t *testing.T) {
	cut := api.Injection{Action: api.RedisCut, Point: api.AfterCommit}
	plan := workload.Plan{Ops: []workload.Op{{ID: 0, Account: "acct-1", Amount: 100, Currency: "EUR", Group: -1, After: -1, MaxTries: 2,
		Tries: []workload.Try{{Fault: workload.DropResponse, Inject: cut}, {Replica: 1}}}}}
	b, err := json.Marshal(plan)
	want := `{"accounts":null,"ops":[{"id":0,"account":"acct-1","amount":100,"currency":"EUR","group":-1,"after":-1,"max_tries":2,` +
		`"tries":[{"replica":0,"fault":"drop-response","inject":"redis-cut@after-commit"},{"replica":1}]}]}`
	if err != nil || string(b) != want {
		t.Fatalf("plan written as\n%s (%v)\nwant\n%s", b, err, want)
	}
	var back workload.Plan
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, plan) {
		t.Fatalf("plan read back as %+v, %v", back, err)
	}
	f, err := json.Marshal(plan.Faults())
	if want := `[{"op":0,"try":1,"fault":"drop-response","inject":"redis-cut@after-commit"}]`; err != nil || string(f) != want {
		t.Fatalf("faults written as %s (%v); want %s", f, err, want)
	}
	bad := strings.Replace(string(b), "redis-cut@after-commit", "redis-cut@after-lunch", 1)
	if err := json.Unmarshal([]byte(bad), &back); err == nil || !strings.Contains(err.Error(), `"redis-cut@after-lunch"`) {
		t.Fatalf("a malformed injection read: %v", err)
	}
}
