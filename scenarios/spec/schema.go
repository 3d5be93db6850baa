package spec

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/idemchaos/idemchaos/internal/strictyaml"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// The JSON Schemas (2020-12) of the files, as published in schemas/.
const (
	ScenarioSchemaFile = "scenario.schema.json"
	ProfileSchemaFile  = "profile.schema.json"
)

// note is what a field's schema says besides its type: a description,
// bounds, the values it takes.
type note struct {
	desc     string
	min, max any
	above    any // exclusiveMinimum
	enum     []string
	pattern  string
	anyOf    []any
}

// durationPattern is a Go duration ("250ms", "1m30s").
const durationPattern = `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`

// scenarioNotes describe the fields of a scenario file, by path ([] for a
// list's items). The bounds are Validate's; what Validate checks across
// fields (amount.min <= amount.max, the run's length) only it can.
var scenarioNotes = map[string]note{
	"":                        {desc: "A scenario of your own, from the building blocks (examples/README.md)."},
	"name":                    {desc: "The scenario's name: not a built-in one's.", pattern: namePattern.String()},
	"doc":                     {desc: "What the scenario does, for reports.", max: maxText},
	"reveals":                 {desc: "What it reveals, one line for the tables.", max: maxText},
	"accounts":                {desc: "The accounts opened before the run."},
	"accounts.count":          {desc: "How many accounts.", min: 1, max: maxAccounts},
	"accounts.opening":        {desc: "Each account's opening balance, in minor units.", min: 1, max: maxOpening},
	"traffic":                 {desc: "The shape of the requests."},
	"traffic.keys":            {desc: "Logical payments, each with its own key.", min: 1, max: workload.MaxOps},
	"traffic.duplicates":      {desc: "How many more requests send each key again.", min: 0, max: maxDuplicates},
	"traffic.together":        {desc: "Release the requests of a key at once through a barrier (needs duplicates)."},
	"traffic.spread":          {desc: "Start window: each key starts at an offset drawn in [0, spread), at most 1m."},
	"traffic.amount":          {desc: "The range amounts are drawn from, in minor units."},
	"traffic.amount.min":      {desc: "Smallest amount.", min: 1, max: maxAmount},
	"traffic.amount.max":      {desc: "Largest amount (at least min).", min: 1, max: maxAmount},
	"traffic.changed_amount":  {desc: "Share of duplicates sent with another amount (needs duplicates).", min: 0, max: 1},
	"traffic.without_key":     {desc: "Share of payments sent once, without a key.", min: 0, max: 1},
	"retries":                 {desc: "The client's retry policy."},
	"retries.max_tries":       {desc: "Tries per request, the first included.", min: 1, max: maxTries},
	"retries.per_try_timeout": {desc: "How long the client waits for each try, at most 10s."},
	"retries.backoff":         {desc: "First backoff between tries, at most max_backoff."},
	"retries.max_backoff":     {desc: "Largest backoff, at most 10s."},
	"faults":                  {desc: "Faults, each placed on a share of the requests.", max: maxFaults},
	"faults[]":                {desc: "One fault."},
	"faults[].kind":           {desc: "drop-response (client side) or an action inside the target."},
	"faults[].at":             {desc: "The failpoint of an in-target fault."},
	"faults[].duration":       {desc: "The length of a delay or of pg-latency."},
	"faults[].share":          {desc: "Share of the requests whose try meets the fault.", above: 0, max: 1},
	"faults[].try":            {desc: "The try (1-based) the fault hits.", min: 1, max: maxTries},
	"faults[].drop_response":  {desc: "Also drop the response of the tries an in-target fault hits."},
	"probe":                   {desc: "After the traffic, probe every key once the claim expired."},
	"target":                  {desc: "What the scenario needs of the target."},
	"target.replicas":         {desc: "Target replicas.", min: 1, max: maxReplicas},
	"target.claim_ttl":        {desc: "How long an in-flight claim lives, at most 1m."},
	"target.key_ttl":          {desc: "How long a key is kept, at most 24h."},
	"power": {desc: "Against a user's service, a scenario that releases duplicates together sends rounds until its same-key overlaps reach the aim, " +
		"or its budget is spent; a pass needs the target (short of it: inconclusive, with the count); the command line's --power-target, --power-aim and --power-budget win."},
	"power.target": {desc: "Same-key overlaps a pass needs (0: 299, enough that a race hit by 1 % of them shows with 95 % confidence).", min: 0, max: MaxPowerTarget},
	"power.aim": {desc: "Same-key overlaps the rounds go on to while the budget lasts, at least the target (0: 2995, enough that a race hit by 0.1 % of them shows with 95 % confidence).",
		min: 0, max: MaxPowerTarget},
	"power.budget":  {desc: "The longest rounds are sent for, at most 30m (0s: 30s)."},
	"explore":       {desc: "With idemchaos run: explore the target too, every order of two requests of one key in each case (docs/explore.md)."},
	"explore.cases": {desc: "The cases, as explore's --case takes them (idemchaos checks the names).", max: maxExploreCases},
	"explore.cases[]": {desc: "A case as explore's --case names it (docs/explore.md): a kind, or a kind that strikes at a point and the point (lost-reply@after-commit).",
		pattern: casePattern.String()},
}

// profileNotes describe the fields of a profile file.
var profileNotes = map[string]note{
	"":     {desc: "A custom contract profile: the statuses the service answers. Fields left out keep the ietf value."},
	"name": {desc: "The profile's name: not a built-in one's.", pattern: api.ProfileNamePattern},
	"missing_key": {desc: "Status for a POST without a key (4xx), or 0: such a POST is served.",
		anyOf: []any{map[string]any{"const": 0}, map[string]any{"minimum": 400, "maximum": 499}}},
	"in_flight": {desc: "Status for a duplicate while the first runs (4xx), or a list of them, any of which the service may answer " +
		"(the first is the one the built-in targets answer), or wait: the service holds it until the first finishes."},
	"mismatch": {desc: "Status for a key reused with another body (4xx), or a list of them, any of which the service may answer " +
		"(the first is the one the built-in targets answer)."},
	"replay_header":   {desc: "Header every replay must carry (none when left out).", enum: []string{"", api.HeaderReplayed}},
	"replay_errors":   {desc: "A 5xx that moved no money may be replayed."},
	"replay_refusals": {desc: "A declined charge (402) is kept with its key and replayed; false: a retry is decided again."},
}

// ScenarioSchema is the JSON Schema of a scenario file, generated from Spec.
func ScenarioSchema() ([]byte, error) {
	notes := maps.Clone(scenarioNotes)
	notes["faults[].kind"] = note{desc: notes["faults[].kind"].desc, enum: Kinds()}
	var points []string
	for _, p := range api.Points() {
		points = append(points, string(p))
	}
	notes["faults[].at"] = note{desc: notes["faults[].at"].desc, enum: points}
	return schemaDoc(reflect.TypeFor[Spec](), notes, "idemchaos scenario file")
}

// ProfileSchema is the JSON Schema of a profile file, generated from its
// decoded form.
func ProfileSchema() ([]byte, error) {
	return schemaDoc(reflect.TypeFor[profileFile](), profileNotes, "idemchaos profile file")
}

func schemaDoc(t reflect.Type, notes map[string]note, title string) ([]byte, error) {
	g := generator{notes: notes, used: map[string]bool{}}
	s, err := g.of(t, "")
	if err != nil {
		return nil, err
	}
	for path := range notes {
		if !g.used[path] {
			return nil, fmt.Errorf("schema note %q names no field", path)
		}
	}
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["required"] = []string{"name"} // both files' one required field
	s["title"] = title
	b, err := json.MarshalIndent(s, "", "  ")
	return append(b, '\n'), err
}

// generator builds a schema from Go types and their yaml and default tags.
type generator struct {
	notes map[string]note
	used  map[string]bool
}

// special are the types decoded from a scalar of more than one form.
var special = map[reflect.Type]func() map[string]any{
	reflect.TypeFor[Duration](): func() map[string]any {
		return map[string]any{"type": "string", "pattern": durationPattern}
	},
	reflect.TypeFor[statuses](): func() map[string]any {
		return map[string]any{"oneOf": statusSchemas()}
	},
	reflect.TypeFor[inFlight](): func() map[string]any {
		return map[string]any{"oneOf": append(statusSchemas(), map[string]any{"const": waitWord})}
	},
}

// statusSchemas are the forms of a status field: one 4xx status, or a
// list of distinct ones.
func statusSchemas() []any {
	one := func() map[string]any { return map[string]any{"type": "integer", "minimum": 400, "maximum": 499} }
	return []any{one(), map[string]any{"type": "array", "items": one(), "minItems": 1, "uniqueItems": true}}
}

var scalarUnmarshaler = reflect.TypeFor[strictyaml.ScalarUnmarshaler]()

// of is the schema of type t at path, with its note.
func (g generator) of(t reflect.Type, path string) (map[string]any, error) {
	s, err := g.typed(t, path)
	if err != nil {
		return nil, err
	}
	n, ok := g.notes[path]
	if !ok {
		return nil, fmt.Errorf("field %q has no schema note: describe it in schema.go", path)
	}
	g.used[path] = true
	n.apply(s)
	return s, nil
}

func (g generator) typed(t reflect.Type, path string) (map[string]any, error) {
	if mk, ok := special[t]; ok {
		return mk(), nil
	}
	if reflect.PointerTo(t).Implements(scalarUnmarshaler) {
		return nil, fmt.Errorf("field %q: type %s has no schema", path, t)
	}
	switch t.Kind() {
	case reflect.Struct:
		return g.object(t, path)
	case reflect.Slice:
		items, err := g.of(t.Elem(), path+"[]")
		return map[string]any{"type": "array", "items": items}, err
	case reflect.String:
		return map[string]any{"type": "string"}, nil
	case reflect.Bool:
		return map[string]any{"type": "boolean"}, nil
	case reflect.Int, reflect.Int64:
		return map[string]any{"type": "integer"}, nil
	case reflect.Float64:
		return map[string]any{"type": "number"}, nil
	}
	return nil, fmt.Errorf("field %q: type %s has no schema", path, t)
}

func (g generator) object(t reflect.Type, path string) (map[string]any, error) {
	props := map[string]any{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		at := name
		if path != "" {
			at = path + "." + name
		}
		s, err := g.of(f.Type, at)
		if err != nil {
			return nil, err
		}
		if def, ok := f.Tag.Lookup("default"); ok {
			var v any
			if err := yaml.Unmarshal([]byte(def), &v); err != nil {
				return nil, fmt.Errorf("field %q: default %q: %v", at, def, err)
			}
			s["default"] = v
		}
		props[name] = s
	}
	return map[string]any{"type": "object", "additionalProperties": false, "properties": props}, nil
}

func (n note) apply(s map[string]any) {
	if n.desc != "" {
		s["description"] = n.desc
	}
	if n.pattern != "" {
		s["pattern"] = n.pattern
	}
	if len(n.enum) > 0 {
		s["enum"] = n.enum
	}
	if len(n.anyOf) > 0 {
		s["anyOf"] = n.anyOf
	}
	lo, hi := "minimum", "maximum"
	switch s["type"] {
	case "string":
		lo, hi = "minLength", "maxLength"
	case "array":
		lo, hi = "minItems", "maxItems"
	}
	if n.min != nil {
		s[lo] = n.min
	}
	if n.max != nil {
		s[hi] = n.max
	}
	if n.above != nil {
		s["exclusiveMinimum"] = n.above
	}
}
