package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/spec"
)

func fromYAML(t *testing.T, yaml string) Scenario {
	t.Helper()
	s, err := spec.Parse([]byte(yaml), Names())
	if err != nil {
		t.Fatal(err)
	}
	sc, err := FromSpec(s)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestFromSpecAssumes: the self-checks follow the building blocks a file
// uses: a barrier must overlap, a drop must hide an answer, an in-target
// fault must fire.
func TestFromSpecAssumes(t *testing.T) {
	if fromYAML(t, "name: plain\n").Assume != nil {
		t.Fatal("a spec without races or faults assumes something")
	}
	sc := fromYAML(t, `name: burst
traffic: {keys: 5, duplicates: 2, together: true}
retries: {max_tries: 4, per_try_timeout: 200ms, backoff: 20ms, max_backoff: 80ms}
faults:
  - {kind: drop-response, share: 0.5}
  - {kind: redis-cut, at: after-commit, share: 0.5, try: 2}
probe: true
target: {replicas: 2}
`)
	got := strings.Join(sc.Assume(Observation{}), " | ")
	for _, want := range []string{"in flight together", "planned faults hid", "fired inside the target"} {
		if !strings.Contains(got, want) {
			t.Errorf("assumptions %q lack %q", got, want)
		}
	}
	if sc.Target.Replicas != 2 || sc.Policy.PerTry.String() != "200ms" || !sc.Probe || sc.Gate != nil {
		t.Fatalf("scenario %+v", sc)
	}
	only := fromYAML(t, "name: drops\nfaults: [{kind: drop-response}]\n")
	if got := only.Assume(Observation{}); len(got) != 1 || !strings.Contains(got[0], "planned faults hid") {
		t.Fatalf("a drop-only spec assumes %q", got)
	}
}

// TestFromSpecRefusesBuiltinNames: a saved spec that took a built-in name
// (the catalog grew since) is refused when judged again, with the field.
func TestFromSpecRefusesBuiltinNames(t *testing.T) {
	s, err := spec.Parse([]byte("name: mine\n"), Names())
	if err != nil {
		t.Fatal(err)
	}
	s.Name = "forced-race"
	if _, err := FromSpec(s); err == nil || !strings.Contains(err.Error(), `name: "forced-race" is a built-in scenario`) {
		t.Fatalf("error %v", err)
	}
	if _, err := spec.Parse([]byte("name: dropped-response\n"), Names()); err == nil {
		t.Fatal("a file took a built-in scenario's name")
	}
}

// TestSpecPower: a scenario file that releases duplicates together hunts
// its race in rounds against a service, to its own power goal unless the
// command line gives one; a file that races nothing cannot ask for power.
func TestSpecPower(t *testing.T) {
	s, err := spec.Parse([]byte("name: burst\ntraffic: {keys: 5, duplicates: 2, together: true}\npower: {target: 450, aim: 900, budget: 20s}\n"), Names())
	if err != nil {
		t.Fatal(err)
	}
	sc, err := FromSpec(s)
	if err != nil {
		t.Fatal(err)
	}
	c := serviceCell(s.Name)
	c.Custom = &s
	if !sc.Hunts || !sc.ProbeHolds || !c.Powered(sc) {
		t.Fatalf("a racing scenario file: hunts %v, probes holds %v, powered %v", sc.Hunts, sc.ProbeHolds, c.Powered(sc))
	}
	if g := c.Goal(sc); g.Target != 450 || g.Aim != 900 || g.Budget != 20*time.Second {
		t.Errorf("the file's goal: %+v", g)
	}
	c.Target.Power.Target, c.Target.Power.Aim = 100, 5000
	if g := c.Goal(sc); g.Target != 100 || g.Aim != 5000 || g.Budget != 20*time.Second {
		t.Errorf("the flags win the target and the aim, the file keeps the budget: %+v", g)
	}
	for _, p := range []string{"{target: 450}", "{aim: 900}"} {
		if _, err := spec.Parse([]byte("name: calm\ntraffic: {keys: 5}\npower: "+p+"\n"), Names()); err == nil || !strings.Contains(err.Error(), "power") {
			t.Errorf("power %s on a scenario that races nothing: %v", p, err)
		}
	}
}
