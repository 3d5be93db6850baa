package spec

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

const schemasDir = "../../schemas"

// TestSchemasArePublished: schemas/ holds the schemas generated from the
// Go types; a field added to them changes the generated schema (or fails
// it, without a note), so this test fails until schemas/ is regenerated
// with IDEMCHAOS_WRITE_SCHEMAS=1 go test ./scenarios/spec -run TestSchemasArePublished.
func TestSchemasArePublished(t *testing.T) {
	for file, gen := range map[string]func() ([]byte, error){ScenarioSchemaFile: ScenarioSchema, ProfileSchemaFile: ProfileSchema} {
		want, err := gen()
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		path := filepath.Join(schemasDir, file)
		if os.Getenv("IDEMCHAOS_WRITE_SCHEMAS") == "1" {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not what the Go types give (%v): regenerate it with IDEMCHAOS_WRITE_SCHEMAS=1 go test ./scenarios/spec -run TestSchemasArePublished", path, err)
		}
	}
}

// TestSchemaNeedsEveryField: a field without a note, or a note without a
// field, fails the generation.
func TestSchemaNeedsEveryField(t *testing.T) {
	type file struct {
		Name  string `yaml:"name"`
		Added int    `yaml:"added"`
	}
	notes := map[string]note{"": {}, "name": {}}
	g := generator{notes: notes, used: map[string]bool{}}
	if _, err := g.of(reflect.TypeFor[file](), ""); err == nil || !strings.Contains(err.Error(), `field "added" has no schema note`) {
		t.Errorf("a field without a note: %v", err)
	}
	notes["added"], notes["gone"] = note{}, note{}
	if _, err := schemaDoc(reflect.TypeFor[file](), notes, "t"); err == nil || !strings.Contains(err.Error(), `schema note "gone" names no field`) {
		t.Errorf("a note without a field: %v", err)
	}
}

func compile(t *testing.T, file string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(filepath.Join(schemasDir, file))
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// instance reads YAML (or JSON) as the JSON value a validator sees.
func instance(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestExamplesValidateAgainstTheSchemas: every example file is valid
// against its published schema, and the YAML ones name it on their
// yaml-language-server line, so editors validate and complete them.
func TestExamplesValidateAgainstTheSchemas(t *testing.T) {
	scenario, profile := compile(t, ScenarioSchemaFile), compile(t, ProfileSchemaFile)
	yamls, _ := filepath.Glob("../../examples/*.yaml")
	jsons, _ := filepath.Glob("../../examples/*.json")
	n := 0
	for _, f := range append(yamls, jsons...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sch, name := scenario, ScenarioSchemaFile
		if strings.HasPrefix(filepath.Base(f), "profile-") {
			sch, name = profile, ProfileSchemaFile
		}
		if err := sch.Validate(instance(t, data)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		line := "# yaml-language-server: $schema=../schemas/" + name + "\n"
		if strings.HasSuffix(f, ".yaml") && !strings.HasPrefix(string(data), line) {
			t.Errorf("%s does not start with %q", f, line)
		}
		n++
	}
	if n < 4 {
		t.Fatalf("%d example files", n)
	}
}

// TestSchemaRefusesWhatTheDecoderRefuses: the field-by-field rules the
// decoder and Validate keep, the schema keeps too (an editor flags them).
func TestSchemaRefusesWhatTheDecoderRefuses(t *testing.T) {
	scenario, profile := compile(t, ScenarioSchemaFile), compile(t, ProfileSchemaFile)
	if err := scenario.Validate(instance(t, []byte(validSpec))); err != nil {
		t.Fatalf("the valid spec: %v", err)
	}
	for _, text := range []string{
		edit(t, "probe: true", "probes: true"),
		edit(t, "  duplicates: 2", "  dupes: 2"),
		edit(t, "keys: 5", "keys: five"),
		edit(t, "keys: 5", "keys: 5.5"),
		edit(t, "keys: 5", "keys: 0"),
		edit(t, "together: true", `together: "yes"`),
		edit(t, "backoff: 20ms", "backoff: 20"),
		edit(t, "backoff: 20ms", "backoff: soon"),
		edit(t, "    share: 0.3", "    share: 1.5"),
		edit(t, "    share: 0.3", "    share: 0"),
		edit(t, "kind: drop-response", "kind: melt"),
		edit(t, "at: before-commit", "at: mid-air"),
		edit(t, "name: burst", "name: ../x"),
		edit(t, "replicas: 2", "replicas: 9"),
		strings.Replace(validSpec, "name: burst\n", "", 1),
	} {
		if err := scenario.Validate(instance(t, []byte(text))); err == nil {
			t.Errorf("the schema accepts:\n%s", text)
		}
	}
	for _, text := range []string{"name: x\nin_flight: soon\n", "name: x\nmismatch: 200\n", "name: x\nreplay_header: X-Other\n", "name: x\nextra: 1\n", "mismatch: 409\n",
		"name: x\nin_flight: []\n", "name: x\nin_flight: [409, 409]\n", "name: x\nin_flight: [409, wait]\n", "name: x\nmismatch: [422, 600]\n",
		"name: x\nmismatch: [422, \"409\"]\n", "name: x\nmismatch: []\n"} {
		if err := profile.Validate(instance(t, []byte(text))); err == nil {
			t.Errorf("the profile schema accepts %q", text)
		}
	}
	for _, text := range []string{"name: x\nin_flight: wait\nmissing_key: 0\n", "name: x\nin_flight: [409, 425]\nmismatch: [422, 409]\n", "name: x\nmismatch: [400]\n"} {
		if err := profile.Validate(instance(t, []byte(text))); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
}

// TestExploreField: a file asks for an exploration by its cases; a case
// that is not a name, or a field the section does not have, is one line
// naming the field, and the schema refuses both too. Which names are
// cases only idemchaos knows (the command checks them).
func TestExploreField(t *testing.T) {
	scenario := compile(t, ScenarioSchemaFile)
	ok := validSpec + "explore:\n  cases: [duplicate, lost-reply@after-commit]\n"
	s, err := Parse([]byte(ok), reserved)
	if err != nil || !s.Explore.Asked() || len(s.Explore.Cases) != 2 || scenario.Validate(instance(t, []byte(ok))) != nil {
		t.Fatalf("%+v, %v", s.Explore, err)
	}
	if s, err := Parse([]byte(validSpec), reserved); err != nil || s.Explore.Asked() {
		t.Errorf("no explore section: %+v, %v", s.Explore, err)
	}
	for _, c := range []struct{ text, want string }{
		{validSpec + "explore:\n  cases: [\"Dup licate\"]\n", `explore.cases[0]: "Dup licate" is not a case`},
		{validSpec + "explore:\n  kases: [duplicate]\n", "explore.kases: unknown field"},
	} {
		_, err := Parse([]byte(c.text), reserved)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", c.text, err, c.want)
		}
		if scenario.Validate(instance(t, []byte(c.text))) == nil {
			t.Errorf("the schema takes %q", c.text)
		}
	}
}
