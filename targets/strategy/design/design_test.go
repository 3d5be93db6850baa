package design

import (
	"slices"
	"testing"
)

func TestCatalog(t *testing.T) {
	seen := map[string]bool{}
	replays := []string{ReplayNowhere, ReplayMemory, ReplayRedis, ReplayPostgres, ReplayRedisPostgres}
	correct := 0
	for _, s := range Catalog() {
		switch {
		case seen[s.Name]:
			t.Errorf("%s listed twice", s.Name)
		case s.Mechanism == "":
			t.Errorf("%s: no mechanism", s.Name)
		case !slices.Contains(replays, s.ReplayFrom):
			t.Errorf("%s: replays from %q", s.Name, s.ReplayFrom)
		case s.Redis != (s.ReplayFrom == ReplayRedis || s.ReplayFrom == ReplayRedisPostgres || s.Steps.Claim == RedisGuard):
			t.Errorf("%s: keeps Redis %v but replays from %s", s.Name, s.Redis, s.ReplayFrom)
		}
		if s.ReplayFrom != ReplayNowhere && s.Steps.Check == None {
			t.Errorf("%s: keeps keys but its narration checks nothing", s.Name)
		}
		if s.Flaw == "" {
			correct++
		}
		seen[s.Name] = true
		if got, err := Lookup(s.Name); err != nil || got.Name != s.Name {
			t.Errorf("Lookup(%s) = %v, %v", s.Name, got, err)
		}
	}
	if correct != 2 {
		t.Errorf("%d correct designs; the catalog has pg-tx and redis-pg-guard", correct)
	}
	if _, err := Lookup("nope"); err == nil {
		t.Error("an unknown strategy was found")
	}
	Catalog()[0].Name = "changed"
	if Names()[0] == "changed" {
		t.Error("Catalog exposes its backing array")
	}
}

// TestRolesNameTheirDesigns: the baseline has no key layer and a flaw, the
// reference and the guarded reference none.
func TestRolesNameTheirDesigns(t *testing.T) {
	for name, flawed := range map[string]bool{Baseline: true, Reference: false, Guarded: false} {
		s, err := Lookup(name)
		if err != nil || (s.Flaw != "") != flawed {
			t.Errorf("%s: %v, flaw %q", name, err, s.Flaw)
		}
	}
}

// TestRegisterAddsAfterTheBuiltIns: a registered strategy follows the
// built-in ones and is looked up like them; a second one of its name, or
// one without a mechanism, panics.
func TestRegisterAddsAfterTheBuiltIns(t *testing.T) {
	defer func(c []Info) { catalog = c }(catalog)
	Register(Info{Name: "pg-test", Mechanism: "as pg-tx", ReplayFrom: ReplayPostgres, Demos: []string{"test-scenario"}})
	if names := Names(); names[len(names)-1] != "pg-test" || len(names) != len(builtin)+1 {
		t.Fatalf("names: %v", names)
	}
	if DemoOf("test-scenario") != "pg-test" {
		t.Error("its demo is not found")
	}
	for _, s := range []Info{{Name: "pg-test", Mechanism: "again", ReplayFrom: ReplayPostgres}, {Name: "pg-bare", ReplayFrom: ReplayPostgres}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s registered", s.Name)
				}
			}()
			Register(s)
		}()
	}
}
