package scenarios

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// TestAssumeInjectedCountsOnlyCutsTheServiceMet: a store cut counts as
// fired only where the service met it, on each proxy cut: it made a
// connection on the proxy while cut, or the try cut for got a server
// error. A proxy none of whose cuts met the service makes the run
// inconclusive, with the proxy and the count; a run without recorded cuts
// (a built-in target) is judged by its fired count alone.
func TestAssumeInjectedCountsOnlyCutsTheServiceMet(t *testing.T) {
	pg := func(attempt string, conns int) StoreCut {
		return StoreCut{Action: api.PGCut, Proxy: "users-pg", Attempt: attempt, Conns: conns}
	}
	redis := StoreCut{Action: api.RedisCut, Proxy: "users-redis", Attempt: "0-1", Conns: 0}
	obs := func(status int, cuts ...StoreCut) Observation {
		o := Observation{Injected: len(cuts), Cuts: cuts}
		for _, id := range []string{"0-1", "1-1", "2-1"} {
			o.History.Attempts = append(o.History.Attempts, history.Attempt{ID: id, Key: "k" + id, Status: status})
		}
		return o
	}
	cases := []struct {
		name string
		o    Observation
		want string // "": no reason
	}{
		{"bypassed", obs(201, pg("0-1", 0), pg("1-1", 0), pg("2-1", 0)),
			"the Postgres proxy users-pg saw no traffic from the service while cut (3 cuts), and no faulted request got a server error: " +
				"does the service reach its Postgres on another path (or not at all)?"},
		{"one met by a connection", obs(201, pg("0-1", 0), pg("1-1", 2)), ""},
		{"met by a server error", obs(503, pg("0-1", 0)), ""},
		{"Redis never met, Postgres met", obs(201, pg("0-1", 1), redis), "the Redis proxy users-redis saw no traffic from the service while cut (1 cut)"},
		{"a built-in target", Observation{Injected: 2}, ""},
		{"nothing fired", Observation{}, "no planned fault fired inside the target"},
	}
	for _, c := range cases {
		got := assumeInjected(c.o)
		switch {
		case c.want == "" && got != nil:
			t.Errorf("%s: %q; want no reason", c.name, got)
		case c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)):
			t.Errorf("%s: %q; want one reason with %q", c.name, got, c.want)
		}
	}
}

// TestStoreCutsSavedWithTheObservation: the cuts are in observation.json,
// so check re-judges a saved run as it was judged.
func TestStoreCutsSavedWithTheObservation(t *testing.T) {
	o := Observation{Injected: 1, Cuts: []StoreCut{{Action: api.PGCut, Proxy: "users-pg", Attempt: "0-1", Conns: 2, Bytes: 41}}}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	want := `"cuts":[{"action":"pg-cut","proxy":"users-pg","attempt":"0-1","conns":2,"bytes":41}]`
	if !strings.Contains(string(b), want) {
		t.Errorf("observation %s; want %s", b, want)
	}
	var back Observation
	if err := json.Unmarshal(b, &back); err != nil || len(back.Cuts) != 1 || back.Cuts[0] != o.Cuts[0] {
		t.Errorf("read back: %+v (%v)", back.Cuts, err)
	}
	if b, _ := json.Marshal(Observation{}); strings.Contains(string(b), "cuts") {
		t.Errorf("an observation without cuts: %s; want none written", b)
	}
}
