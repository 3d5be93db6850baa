package spec

import (
	"reflect"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/targets/api"
)

func TestParseProfileYAMLAndJSON(t *testing.T) {
	y, err := ParseProfile([]byte("name: acme\nmissing_key: 428\nreplay_header: idempotent-replayed\nreplay_errors: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := api.Profile{Name: "acme", MissingKey: 428, InFlight: 409, Mismatch: 422, ReplayHeader: api.HeaderReplayed, ReplayErrors: true}
	if !reflect.DeepEqual(y, want) {
		t.Fatalf("yaml: %+v; want %+v", y, want)
	}
	j, err := ParseProfile([]byte(`{"name": "acme", "missing_key": 428, "replay_header": "Idempotent-Replayed", "replay_errors": true}`))
	if err != nil || !reflect.DeepEqual(j, want) {
		t.Fatalf("json: %+v, %v", j, err)
	}
	for _, in := range []string{"name: patient\nin_flight: wait\n", `{"name": "patient", "in_flight": "wait"}`} {
		waits, err := ParseProfile([]byte(in))
		want := api.Profile{Name: "patient", MissingKey: 400, InFlight: 409, InFlightWait: true, Mismatch: 422}
		if err != nil || !reflect.DeepEqual(waits, want) {
			t.Fatalf("in_flight: wait: %+v, %v", waits, err)
		}
	}
	if p, err := ParseProfile([]byte("name: hex\nin_flight: 0x1ad\n")); err != nil || p.InFlight != 429 || p.InFlightWait {
		t.Fatalf("in_flight: 0x1ad: %+v, %v", p, err)
	}
	for in, redecide := range map[string]bool{"name: forgetful\nreplay_refusals: false\n": true,
		`{"name": "keeps", "replay_refusals": true}`: false, "name: default\n": false} {
		p, err := ParseProfile([]byte(in))
		if err != nil || p.RedecideRefusals != redecide {
			t.Fatalf("%q: %+v, %v; want RedecideRefusals %v", in, p, err, redecide)
		}
	}
	allowed, err := ParseProfile([]byte("name: lenient\nmissing_key: 0\n"))
	if err != nil || allowed.MissingKey != 0 || allowed.InFlight != 409 || allowed.Mismatch != 422 {
		t.Fatalf("missing_key 0: %+v, %v", allowed, err)
	}
}

// TestParseProfileStatusSets: in_flight and mismatch take a list of
// statuses, in YAML (flow or block) or JSON; the first is the one the
// built-in targets answer, the others are kept as the set's rest; a list
// of one is that status alone.
func TestParseProfileStatusSets(t *testing.T) {
	want := api.Profile{Name: "split", MissingKey: 400, InFlight: 409, InFlightAlso: []int{425},
		Mismatch: 422, MismatchAlso: []int{409}}
	for _, in := range []string{
		"name: split\nin_flight: [409, 425]\nmismatch: [422, 409]\n",
		"name: split\nin_flight:\n  - 409\n  - 0x1a9\nmismatch:\n  - 422\n  - 409\n",
		`{"name": "split", "in_flight": [409, 425], "mismatch": [422, 409]}`,
	} {
		p, err := ParseProfile([]byte(in))
		if err != nil || !reflect.DeepEqual(p, want) {
			t.Fatalf("%q: %+v, %v; want %+v", in, p, err, want)
		}
		if !p.IsInFlight(425) || !p.IsInFlight(409) || p.IsInFlight(422) || !p.IsMismatch(409) || p.IsMismatch(425) {
			t.Fatalf("%q: the sets are %v and %v", in, p.InFlightSet(), p.MismatchSet())
		}
	}
	one, err := ParseProfile([]byte("name: early\nin_flight: [425]\nmismatch: [409]\n"))
	want = api.Profile{Name: "early", MissingKey: 400, InFlight: 425, Mismatch: 409}
	if err != nil || !reflect.DeepEqual(one, want) {
		t.Fatalf("lists of one: %+v, %v; want %+v", one, err, want)
	}
}

func TestParseProfileRejects(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"unknown field", "name: a\nin_flite: 409\n", "in_flite: unknown field (known: name, missing_key, in_flight, mismatch, replay_header, replay_errors, replay_refusals) (line 2)"},
		{"unknown json field", `{"name": "a", "mismatch_status": 422}`, "mismatch_status: unknown field"},
		{"string status", "name: a\nmismatch: unprocessable\n", `mismatch: want a 4xx status or a list of them, got "unprocessable" (line 2)`},
		{"quoted status", "name: a\nin_flight: \"409\"\n", `in_flight: want an integer, got "409" (line 2)`},
		{"other word", "name: a\nin_flight: block\n", `in_flight: want a 4xx status, a list of them or wait, got "block" (line 2)`},
		{"in flight null", "name: a\nin_flight: ~\n", "in_flight: want a 4xx status, a list of them or wait, got null (line 2)"},
		{"in flight bool", "name: a\nin_flight: true\n", `in_flight: want a 4xx status, a list of them or wait, got "true" (line 2)`},
		{"in flight huge", "name: a\nin_flight: 99999999999\n", `in_flight: want a 4xx status, a list of them or wait, got "99999999999" (line 2)`},
		{"in flight mapping", "name: a\nin_flight: {status: 409}\n", "in_flight: want a 4xx status, a list of them or wait, got a mapping (line 2)"},
		{"empty in flight list", "name: a\nin_flight: []\n", "in_flight: want at least one 4xx status, got an empty list (line 2)"},
		{"empty mismatch list", "name: a\nmismatch: []\n", "mismatch: want at least one 4xx status, got an empty list (line 2)"},
		{"word in a list", "name: a\nin_flight:\n  - 409\n  - soon\n", `in_flight[1]: want a 4xx status, got "soon" (line 4)`},
		{"wait in a list", "name: a\nin_flight: [wait, 409]\n", `in_flight[0]: want a 4xx status, got "wait" (line 2)`},
		{"quoted in a list", "name: a\nmismatch: [422, \"409\"]\n", `mismatch[1]: want an integer, got "409" (line 2)`},
		{"list in a list", "name: a\nmismatch: [422, [409]]\n", "mismatch[1]: want a 4xx status, got a list (line 2)"},
		{"null in a list", `{"name": "a", "mismatch": [422, null]}`, "mismatch[1]: want a 4xx status, got null (line 1)"},
		{"2xx in a list", "name: a\nin_flight: [409, 200]\n", "in_flight: 200 is not a 4xx status"},
		{"600 in a list", "name: a\nmismatch: [422, 600]\n", "mismatch: 600 is not a 4xx status"},
		{"99 in a list", "name: a\nmismatch: [99, 422]\n", "mismatch: 99 is not a 4xx status"},
		{"taken in a list", "name: a\nin_flight: [409, 404]\n", "in_flight: 404 is taken"},
		{"twice in a list", "name: a\nin_flight: [409, 425, 409]\n", "in_flight: 409 is given twice"},
		{"bool as string", "name: a\nreplay_errors: \"true\"\n", "replay_errors: want true or false"},
		{"refusals as word", "name: a\nreplay_refusals: never\n", "replay_refusals: want true or false"},
		{"list name", "name: [a]\n", "name: want a string, got a list"},
		{"status 2xx", "name: a\nin_flight: 200\n", "in_flight: 200 is not a 4xx status"},
		{"status 5xx", "name: a\nmissing_key: 503\n", "missing_key: 503 is not a 4xx status (or 0: allowed)"},
		{"zero in flight", "name: a\nin_flight: 0\n", "in_flight: 0 is not allowed here; want a 4xx status"},
		{"zero mismatch", "name: a\nmismatch: 0\n", "mismatch: 0 is not allowed here"},
		{"taken status", "name: a\nmismatch: 402\n", "mismatch: 402 is taken"},
		{"no name", "missing_key: 0\n", `name: "" must be 1 to 64`},
		{"shadows ietf", "name: ietf\n", `name: "ietf" is a built-in profile`},
		{"shadows stripe", `{"name": "stripe"}`, `name: "stripe" is a built-in profile`},
		{"bad name", "name: Acme Payments\n", `name: "Acme Payments" must be`},
		{"other replay header", "name: a\nreplay_header: X-Replayed\n", `replay_header: "X-Replayed" is not sent by the targets`},
		{"yaml syntax", "name: a\nmismatch: [422\n", "profile file: line 2: did not find expected ',' or ']'"},
		{"json syntax", "{\"name\": \"a\",\n\"mismatch\": 422,,}", "profile file: line 2"},
		{"repeated", "name: a\nname: b\n", "name: given twice (lines 1 and 2)"},
		{"empty", "  \n# nothing\n", "profile file: the file is empty"},
		{"scalar", "acme\n", `top level: want a mapping of fields, got "acme" (line 1)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseProfile([]byte(c.in))
			if err == nil {
				t.Fatalf("accepted %q", c.in)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "profile file: ") || !strings.Contains(msg, c.want) || strings.ContainsAny(msg, "\n\r") {
				t.Fatalf("error %q; want one line containing %q", msg, c.want)
			}
		})
	}
}

func TestLoadProfile(t *testing.T) {
	for _, path := range []string{"../../examples/profile-custom.yaml", "../../examples/profile-custom.json"} {
		p, err := LoadProfile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := api.ValidateProfile(p); err != nil || p.File != path {
			t.Fatalf("%+v: %v", p, err)
		}
	}
	_, err := LoadProfile("testdata/profilefile/bad-status.yaml")
	want := "profile file testdata/profilefile/bad-status.yaml: in_flight: 200 is not a 4xx status"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v; want %s", err, want)
	}
	_, err = LoadProfile("testdata/profilefile/absent.yaml")
	if err == nil || err.Error() != "profile file testdata/profilefile/absent.yaml: no such file or directory" {
		t.Fatalf("error %v", err)
	}
}

// TestSyntaxErrorLines: parser, scanner and reader errors all name the line
// of the problem, counted from 1.
func TestSyntaxErrorLines(t *testing.T) {
	cases := []struct{ in, want string }{
		{"name: a\nmismatch: [422\n", "line 2: did not find expected ',' or ']'"},
		{"{\"name\": \"a\",\n\"mismatch\": 422,,}", "line 2: did not find expected node content"},
		{"name: a\nmismatch: 422\n bad: 1\n", "line 3: mapping values are not allowed in this context"},
		{"name: a\nreplay:\n  x: 1\n y: 2\n", "line 4: did not find expected key"},
		{"name: a\n\tmismatch: 422\n", "line 2: found a tab character that violates indentation"},
		{"name: a\nmismatch: 4: 2\n", "line 2: mapping values are not allowed in this context"},
		{"name: a\nmismatch: 422\nreplay_header: \"x\xff\"\n", "line 3: invalid leading UTF-8 octet"},
		{"name: a\nmismatch: 422\nreplay_header: \"x\x01\"\n", "line 3: control characters are not allowed"},
		{"name: a\n\nmismatch: *nothing\n", "line 3: unknown anchor 'nothing' referenced"},
		{"name: [a,,]", "line 1: did not find expected node content"},
	}
	for _, c := range cases {
		_, err := ParseProfile([]byte(c.in))
		if err == nil || err.Error() != "profile file: "+c.want {
			t.Errorf("%q: error %v; want %s", c.in, err, c.want)
		}
	}
}
