package spec

import (
	"reflect"
	"strings"
	"testing"
)

// TestYAMLRoundTrip: a spec written as a file reads back as itself, its
// header as comments.
func TestYAMLRoundTrip(t *testing.T) {
	s, err := Parse([]byte(`
name: tiny
traffic: {keys: 2, duplicates: 1, together: true, spread: 50ms}
retries: {max_tries: 4, per_try_timeout: 200ms}
faults:
  - {kind: drop-response, share: 0.5}
  - {kind: delay, at: before-commit, duration: 300ms, try: 2}
  - {kind: redis-cut, at: after-commit, drop_response: true, share: 0.5}
target: {claim_ttl: 250ms}
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.YAML("made by a test\n  repro: idemchaos run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "# made by a test\n#   repro: idemchaos run\n\nname: tiny\n") {
		t.Errorf("header:\n%s", out)
	}
	back, err := Parse(out, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !reflect.DeepEqual(back, s) {
		t.Errorf("read back\n%+v\nwant\n%+v\n%s", back, s, out)
	}
}
