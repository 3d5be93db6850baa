package spec

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// reserved stands for the built-in scenario names a file may not take.
var reserved = []string{"dropped-response", "forced-race"}

// validSpec is a small spec that uses every block; cases below edit it.
const validSpec = `name: burst
doc: a test burst
traffic:
  keys: 5
  duplicates: 2
  together: true
  spread: 50ms
  amount: {min: 100, max: 500}
  changed_amount: 0.5
  without_key: 0.2
retries:
  max_tries: 4
  per_try_timeout: 200ms
  backoff: 20ms
  max_backoff: 80ms
faults:
  - kind: drop-response
    share: 0.5
  - kind: pg-latency
    at: before-commit
    duration: 300ms
    share: 0.3
    try: 2
  - kind: redis-cut
    at: after-commit
    drop_response: true
    share: 0.5
    try: 2
probe: true
target:
  replicas: 2
  claim_ttl: 250ms
  key_ttl: 1h
`

func TestParseSpecValid(t *testing.T) {
	s, err := Parse([]byte(validSpec), reserved)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "burst" || s.Traffic.Keys != 5 || !s.Traffic.Together || s.Traffic.Spread.D() != 50*time.Millisecond ||
		s.Retries.PerTryTimeout.D() != 200*time.Millisecond || len(s.Faults) != 3 || s.Faults[1].Try != 2 ||
		s.Faults[0].Try != 1 || s.Target.Replicas != 2 || !s.Probe {
		t.Fatalf("parsed %+v", s)
	}
	if s.Accounts.Count != 4 || s.Accounts.Opening != 1_000_000 {
		t.Fatalf("accounts not defaulted: %+v", s.Accounts)
	}
}

func TestParseSpecDefaults(t *testing.T) {
	s, err := Parse([]byte("name: tiny\n"), reserved)
	if err != nil {
		t.Fatal(err)
	}
	want := Spec{Name: "tiny", Accounts: Accounts{Count: 4, Opening: 1_000_000},
		Traffic: Traffic{Keys: 10, Amount: Amount{Min: 100, Max: 2000}},
		Retries: Retries{MaxTries: 3, PerTryTimeout: Duration(2 * time.Second), Backoff: Duration(20 * time.Millisecond),
			MaxBackoff: Duration(200 * time.Millisecond)},
		Target: Target{Replicas: 1, ClaimTTL: Duration(5 * time.Second), KeyTTL: Duration(24 * time.Hour)}}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("defaults\n got %+v\nwant %+v", s, want)
	}
}

// TestSpecJSONRoundTrip: the spec saved in cell.json reads back equal.
func TestSpecJSONRoundTrip(t *testing.T) {
	s, err := Parse([]byte(validSpec), reserved)
	if err != nil {
		t.Fatal(err)
	}
	s.File = "x.yaml"
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Spec
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, back) {
		t.Fatalf("round trip\n got %+v\nwant %+v", back, s)
	}
	if !strings.Contains(string(b), `"per_try_timeout":"200ms"`) {
		t.Errorf("durations are not saved as strings: %s", b)
	}
	if err := back.Validate(reserved); err != nil {
		t.Fatal(err)
	}
}

// edit replaces old by new in validSpec, failing if old is absent.
func edit(t *testing.T, old, new string) string {
	t.Helper()
	if !strings.Contains(validSpec, old) {
		t.Fatalf("validSpec has no %q", old)
	}
	return strings.Replace(validSpec, old, new, 1)
}

func TestParseSpecRejects(t *testing.T) {
	cases := []struct {
		name, yaml, want string
	}{
		// unknown fields
		{"unknown top", edit(t, "probe: true", "probes: true"), "probes: unknown field (known: name, doc, reveals, accounts, traffic, retries, faults, probe, target, power, explore) (line 29)"},
		{"unknown nested", edit(t, "  duplicates: 2", "  dupes: 2"), "traffic.dupes: unknown field"},
		{"unknown in fault", edit(t, "    try: 2\n  - kind: redis-cut", "    when: 2\n  - kind: redis-cut"), "faults[1].when: unknown field"},
		{"repeated field", edit(t, "  keys: 5", "  keys: 5\n  keys: 6"), "traffic.keys: given twice (lines 4 and 5)"},
		// wrong types
		{"string for int", edit(t, "keys: 5", "keys: five"), `traffic.keys: want an integer, got "five" (line 4)`},
		{"float for int", edit(t, "keys: 5", "keys: 5.5"), "traffic.keys: want an integer"},
		{"string for bool", edit(t, "together: true", `together: "yes"`), "traffic.together: want true or false"},
		{"int for duration", edit(t, "backoff: 20ms", "backoff: 20"), `retries.backoff: want a duration such as "500ms", got "20"`},
		{"null for string", edit(t, "doc: a test burst", "doc:"), "doc: want a string, got null"},
		{"list for mapping", edit(t, "amount: {min: 100, max: 500}", "amount: [100, 500]"), "traffic.amount: want a mapping of fields, got a list"},
		{"mapping for list", "name: x\nfaults: {kind: delay}\n", "faults: want a list, got a mapping"},
		{"string for share", edit(t, "changed_amount: 0.5", "changed_amount: half"), "traffic.changed_amount: want a number"},
		{"alias", "name: &n x\ndoc: *n\n", "doc: YAML aliases are not supported"},
		// YAML syntax and documents
		{"syntax", "name: x\ntraffic:\n  keys: [1, 2\n", "scenario file: line 3: did not find expected ',' or ']'"},
		{"bad indentation", "name: x\ntraffic:\n  keys: 1\n dups: 2\n", "scenario file: line 4: did not find expected key"},
		{"tab indentation", "name: x\ntraffic:\n\tkeys: 1\n", "scenario file: line 3: found character that cannot start any token"},
		{"empty", "", "the file is empty"},
		{"two documents", "name: x\n---\nname: y\n", "line 2: a second YAML document"},
		{"top-level list", "- name: x\n", "top level: want a mapping of fields, got a list"},
		// impossible timing
		{"backoff above max", edit(t, "backoff: 20ms", "backoff: 90ms"), "retries.backoff: 90ms is more than retries.max_backoff (80ms)"},
		{"zero per-try", edit(t, "per_try_timeout: 200ms", "per_try_timeout: 0s"), "retries.per_try_timeout: 0s is not in (0s, 10s]"},
		{"negative backoff", edit(t, "backoff: 20ms", "backoff: -1ms"), "retries.backoff: -1ms is not in (0s, 10s]"},
		{"spread too long", edit(t, "spread: 50ms", "spread: 2m"), "traffic.spread: 2m is not in [0s, 1m]"},
		{"injection too long", edit(t, "duration: 300ms", "duration: 11s"), "faults[1].duration: pg-latency needs a duration in (0s, 10s], got 11s"},
		{"injection without duration", edit(t, "    duration: 300ms\n", ""), "faults[1].duration: pg-latency needs a duration"},
		{"duration on a cut", edit(t, "  - kind: redis-cut\n", "  - kind: redis-cut\n    duration: 1s\n"), "faults[2].duration: redis-cut takes no duration"},
		{"claim ttl too long", edit(t, "claim_ttl: 250ms", "claim_ttl: 2m"), "target.claim_ttl: 2m is not in (0s, 1m]"},
		{"run too long", "name: x\ntraffic: {duplicates: 4}\nretries: {max_tries: 20, per_try_timeout: 5s}\n",
			"retries: a run could take 8m40s (spread, then per chain of requests max_tries × (per_try_timeout + max_backoff)); at most 5m"},
		// out-of-range shares
		{"fault share", edit(t, "    share: 0.3", "    share: 1.5"), "faults[1].share: 1.5 is not in (0, 1]"},
		{"zero fault share", edit(t, "    share: 0.3", "    share: 0"), "faults[1].share: 0 is not in (0, 1]"},
		{"negative share", edit(t, "changed_amount: 0.5", "changed_amount: -0.1"), "traffic.changed_amount: -0.1 is not in [0, 1]"},
		{"nan share", edit(t, "without_key: 0.2", "without_key: .nan"), "traffic.without_key: NaN is not in [0, 1]"},
		{"shares add up", edit(t, "    share: 0.3", "    share: 0.6"), "faults[2].share: the shares of the faults on the in-target injections of try 2 add up to 1.1"},
		// other impossible or unbounded values
		{"no name", edit(t, "name: burst", "doc2: x"), "doc2: unknown field"},
		{"empty name", edit(t, "name: burst", `name: ""`), "name: missing"},
		{"built-in name", edit(t, "name: burst", "name: dropped-response"), `name: "dropped-response" is a built-in scenario`},
		{"bad name", edit(t, "name: burst", "name: ../x"), `name: "../x" must be`},
		{"zero keys", edit(t, "keys: 5", "keys: 0"), "traffic.keys: 0 is not in 1..5000"},
		{"too many requests", edit(t, "keys: 5", "keys: 2000"), "traffic: keys × (1 + duplicates) = 6000 requests; at most 5000"},
		{"too many tries", edit(t, "max_tries: 4", "max_tries: 21"), "retries.max_tries: 21 is not in 1..20"},
		{"try past max", edit(t, "    try: 2\n  - kind: redis-cut", "    try: 5\n  - kind: redis-cut"), "faults[1].try: 5 is not in 1..4 (retries.max_tries)"},
		{"unknown kind", edit(t, "kind: drop-response", "kind: melt"), `faults[0].kind: "melt" is not one of drop-response, delay, pg-cut, redis-cut, pg-latency`},
		{"missing kind", edit(t, "  - kind: drop-response\n    share: 0.5", "  - share: 0.5"), `faults[0].kind: "" is not one of`},
		{"unknown point", edit(t, "at: before-commit", "at: mid-air"), `faults[1].at: "mid-air" is not one of after-check`},
		{"injection without point", edit(t, "    at: before-commit\n", ""), "faults[1].at: missing; pg-latency fires at one of"},
		{"point on a drop", edit(t, "  - kind: drop-response\n", "  - kind: drop-response\n    at: after-commit\n"), "faults[0].at: drop-response happens on the client's link"},
		{"amount range", edit(t, "{min: 100, max: 500}", "{min: 600, max: 500}"), "traffic.amount.max: 500 is not in 600..1000000000"},
		{"amount above opening", edit(t, "traffic:", "accounts: {opening: 50}\ntraffic:"), "traffic.amount.min: 100 is more than accounts.opening (50)"},
		{"together alone", "name: x\ntraffic: {together: true}\n", "traffic.together: needs traffic.duplicates above 0"},
		{"change alone", "name: x\ntraffic: {changed_amount: 0.5}\n", "traffic.changed_amount: 0.5 needs traffic.duplicates above 0"},
		{"too many replicas", edit(t, "replicas: 2", "replicas: 9"), "target.replicas: 9 is not in 1..8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml), reserved)
			if err == nil {
				t.Fatalf("accepted:\n%s", c.yaml)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "scenario file: ") || !strings.Contains(msg, c.want) {
				t.Fatalf("error %q; want it to contain %q", msg, c.want)
			}
			if strings.ContainsAny(msg, "\n\r") {
				t.Fatalf("error is not one line: %q", msg)
			}
		})
	}
}

func TestLoadSpecNamesTheFile(t *testing.T) {
	s, err := Load("testdata/custom/ok.yaml", reserved)
	if err != nil {
		t.Fatal(err)
	}
	if s.File != "testdata/custom/ok.yaml" {
		t.Fatalf("file %q", s.File)
	}
	if got := s.Shown(); got != "custom scenario from testdata/custom/ok.yaml" {
		t.Fatalf("shown as %q", got)
	}
	_, err = Load("testdata/custom/bad-share.yaml", reserved)
	want := "scenario file testdata/custom/bad-share.yaml: faults[1].share: 1.5 is not in (0, 1]"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v; want %s", err, want)
	}
	_, err = Load("testdata/custom/absent.yaml", reserved)
	if err == nil || err.Error() != "scenario file testdata/custom/absent.yaml: no such file or directory" {
		t.Fatalf("error %v", err)
	}
}

func TestValidateRejectsAnEmptySpec(t *testing.T) {
	if err := (Spec{Name: "x"}).Validate(reserved); err == nil || !strings.Contains(err.Error(), "accounts.count") {
		t.Fatalf("error %v; want the first zero field named", err)
	}
}
