package openapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// maxDepth bounds the walk of nested schemas (and cyclic ones).
const maxDepth = 8

// The fields of a charge body the plan fills, as hints name them.
const (
	fieldAccount  = "account"
	fieldAmount   = "amount"
	fieldCurrency = "currency"
	fieldKey      = "key"
)

// placeholders stand in the marshalled body for the template actions.
var placeholders = map[string]string{
	fieldAccount:  `"{{.Account}}"`,
	fieldAmount:   `{{.Amount}}`,
	fieldCurrency: `"{{.Currency}}"`,
	fieldKey:      `"{{.Key}}"`,
}

// body is the request's body template: the documented example (the media
// type's, else the schema's), else one made from the schema, with the
// account, amount, currency and key fields set to the plan's values.
func (o Operation) body(w Want) (string, string) {
	const give = " (give --body)"
	var mt *openapi3.MediaType
	if o.op.RequestBody != nil && o.op.RequestBody.Value != nil {
		mt = jsonMedia(o.op.RequestBody.Value.Content)
	}
	if mt == nil {
		return "", "no JSON request body documented" + give
	}
	var sch *openapi3.Schema
	if mt.Schema != nil {
		sch = mt.Schema.Value
	}
	obj, ok := example(mt, sch).(map[string]any)
	if !ok {
		return "", "the request body's example is not a JSON object" + give
	}
	fields := map[string]string{
		fieldAccount:  firstOf(w.AccountField, hintedPath(sch, fieldAccount), named(sch, obj, fieldAccount)),
		fieldAmount:   firstOf(w.AmountField, hintedPath(sch, fieldAmount), named(sch, obj, fieldAmount)),
		fieldCurrency: firstOf(hintedPath(sch, fieldCurrency), named(sch, obj, fieldCurrency)),
		fieldKey:      hintedPath(sch, fieldKey),
	}
	var lack []string
	for _, f := range []string{fieldAccount, fieldAmount} {
		if fields[f] == "" {
			lack = append(lack, fmt.Sprintf("no %s field in the request body (mark one with %s: %s, or give --%s-field)", f, HintField, f, f))
		}
	}
	if len(lack) > 0 {
		return "", strings.Join(lack, "; ")
	}
	return render(obj, fields, sch)
}

// render marshals obj with the fields' placeholders set.
func render(obj map[string]any, fields map[string]string, sch *openapi3.Schema) (string, string) {
	marks := map[string]string{}
	taken := map[string]bool{}
	for _, f := range []string{fieldAccount, fieldAmount, fieldKey, fieldCurrency} {
		path := fields[f]
		if path == "" || taken[path] {
			continue
		}
		taken[path] = true
		mark := "@@idemchaos-" + f + "@@"
		if !setPath(obj, strings.Split(path, "."), mark) {
			return "", fmt.Sprintf("the %s field %s is not inside a JSON object of the body", f, path)
		}
		ph := placeholders[f]
		if f == fieldAmount && isString(schemaAt(sch, path)) {
			ph = `"{{.Amount}}"`
		}
		marks[`"`+mark+`"`] = ph
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return "", "the request body's example cannot be written as JSON: " + err.Error()
	}
	text := string(b)
	if strings.Contains(text, "{{") || strings.Contains(text, "}}") {
		return "", "the request body's example holds {{ or }}, a template's delimiters (give --body)"
	}
	for mark, ph := range marks {
		text = strings.ReplaceAll(text, mark, ph)
	}
	return text, ""
}

// example is the documented example of a body, else one made from its
// schema.
func example(mt *openapi3.MediaType, sch *openapi3.Schema) any {
	if mt.Example != nil {
		return clone(mt.Example)
	}
	names := make([]string, 0, len(mt.Examples))
	for n := range mt.Examples {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if ex := mt.Examples[n]; ex != nil && ex.Value != nil && ex.Value.Value != nil {
			return clone(ex.Value.Value)
		}
	}
	return generate(sch, 0)
}

// generate makes a value that fits sch: its example, default, const or
// first enum value, else a placeholder of its type; an object gets its
// required properties (all of them when it lists none), read-only ones
// left out.
func generate(sch *openapi3.Schema, depth int) any {
	if sch == nil || depth > maxDepth {
		return nil
	}
	for _, v := range []any{sch.Example, sch.Default, sch.Const} {
		if v != nil {
			return clone(v)
		}
	}
	if len(sch.Examples) > 0 {
		return clone(sch.Examples[0])
	}
	if len(sch.Enum) > 0 {
		return clone(sch.Enum[0])
	}
	if len(sch.OneOf) > 0 && sch.OneOf[0].Value != nil {
		return generate(sch.OneOf[0].Value, depth+1)
	}
	if len(sch.AnyOf) > 0 && sch.AnyOf[0].Value != nil {
		return generate(sch.AnyOf[0].Value, depth+1)
	}
	props := properties(sch)
	switch {
	case len(props) > 0 || typeIs(sch, openapi3.TypeObject):
		return generateObject(sch, props, depth)
	case typeIs(sch, openapi3.TypeArray):
		return []any{}
	case typeIs(sch, openapi3.TypeString):
		return "x"
	case typeIs(sch, openapi3.TypeInteger), typeIs(sch, openapi3.TypeNumber):
		return 1
	case typeIs(sch, openapi3.TypeBoolean):
		return false
	}
	return nil
}

func generateObject(sch *openapi3.Schema, props map[string]*openapi3.Schema, depth int) map[string]any {
	want := required(sch)
	out := map[string]any{}
	for name, p := range props {
		if p == nil || p.ReadOnly || len(want) > 0 && !want[name] {
			continue
		}
		out[name] = generate(p, depth+1)
	}
	return out
}

// properties are sch's properties and those of its allOf parts.
func properties(sch *openapi3.Schema) map[string]*openapi3.Schema {
	out := map[string]*openapi3.Schema{}
	if sch == nil {
		return out
	}
	for _, part := range sch.AllOf {
		if part.Value != nil {
			for n, p := range properties(part.Value) {
				out[n] = p
			}
		}
	}
	for n, p := range sch.Properties {
		if p != nil {
			out[n] = p.Value
		}
	}
	return out
}

// required is the set of sch's required properties, its allOf parts' too.
func required(sch *openapi3.Schema) map[string]bool {
	out := map[string]bool{}
	for _, part := range sch.AllOf {
		if part.Value != nil {
			for n := range required(part.Value) {
				out[n] = true
			}
		}
	}
	for _, n := range sch.Required {
		out[n] = true
	}
	return out
}

// hintedPath is the dotted path of the property of sch hinted as what
// ("": none), the first in name order at the shallowest depth.
func hintedPath(sch *openapi3.Schema, what string) string {
	level := []pathed{{"", sch}}
	for depth := 0; depth <= maxDepth && len(level) > 0; depth++ {
		var next []pathed
		for _, at := range level {
			props := properties(at.sch)
			for _, name := range sortedKeys(props) {
				p := join(at.path, name)
				if hint(props[name].Extensions, HintField) == what {
					return p
				}
				next = append(next, pathed{p, props[name]})
			}
		}
		level = next
	}
	return ""
}

type pathed struct {
	path string
	sch  *openapi3.Schema
}

// named is name when sch has such a top-level property or the example
// such a field.
func named(sch *openapi3.Schema, obj map[string]any, name string) string {
	if _, ok := properties(sch)[name]; ok {
		return name
	}
	if _, ok := obj[name]; ok {
		return name
	}
	return ""
}

// schemaAt is the schema of the property at the dotted path (nil: none).
func schemaAt(sch *openapi3.Schema, path string) *openapi3.Schema {
	for _, name := range strings.Split(path, ".") {
		if sch = properties(sch)[name]; sch == nil {
			return nil
		}
	}
	return sch
}

// setPath sets the field at path in obj, making the objects on the way.
func setPath(obj map[string]any, path []string, v any) bool {
	for _, name := range path[:len(path)-1] {
		next, ok := obj[name].(map[string]any)
		if !ok {
			if obj[name] != nil {
				return false
			}
			next = map[string]any{}
			obj[name] = next
		}
		obj = next
	}
	obj[path[len(path)-1]] = v
	return true
}

func typeIs(sch *openapi3.Schema, t string) bool { return sch.Type != nil && sch.Type.Includes(t) }

func isString(sch *openapi3.Schema) bool { return sch != nil && typeIs(sch, openapi3.TypeString) }

// clone deep-copies a decoded JSON value, so filling it in leaves the
// description alone.
func clone(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
