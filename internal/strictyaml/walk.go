package strictyaml

import (
	"encoding"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// fieldError is a decoding error at a field path and file line.
type fieldError struct {
	path string
	line int
	msg  string
}

func (e *fieldError) Error() string {
	where := e.path
	if where == "" {
		where = "top level"
	}
	if e.line > 0 {
		return fmt.Sprintf("%s: %s (line %d)", where, e.msg, e.line)
	}
	return where + ": " + e.msg
}

func errAt(n *yaml.Node, path, format string, args ...any) error {
	return &fieldError{path: path, line: n.Line, msg: oneLine(fmt.Sprintf(format, args...))}
}

var (
	textUnmarshaler   = reflect.TypeFor[encoding.TextUnmarshaler]()
	scalarUnmarshaler = reflect.TypeFor[ScalarUnmarshaler]()
	listUnmarshaler   = reflect.TypeFor[ListUnmarshaler]()
)

// ScalarUnmarshaler is implemented by a field that takes values of more
// than one YAML type (a status code or a word, say), where an
// encoding.TextUnmarshaler would see "409" and 409 alike. UnmarshalScalar
// gets the value's resolved tag ("!!int", "!!str", "!!bool", "!!null", or
// "!!map" and "!!seq" for a value that is not a scalar), its text, and got,
// which describes it for an error (`"soon"`, "null", "a list"). Its error
// becomes the field's, with the field path and line.
type ScalarUnmarshaler interface {
	UnmarshalScalar(tag, text, got string) error
}

// Scalar is one value of a list a ListUnmarshaler takes, as
// UnmarshalScalar would get it.
type Scalar struct{ Tag, Text, Got string }

// ListUnmarshaler is a ScalarUnmarshaler that also takes a list of such
// values (a status, or a set of statuses). UnmarshalList gets the list's
// items, none for an empty list; an *ItemError it returns is reported at
// that item's path and line, any other error at the list's.
type ListUnmarshaler interface {
	ScalarUnmarshaler
	UnmarshalList(items []Scalar) error
}

// ItemError is an error about the item at Index of a list.
type ItemError struct {
	Index int
	Err   error
}

func (e *ItemError) Error() string { return fmt.Sprintf("[%d]: %v", e.Index, e.Err) }

// decodeNode decodes n into v, which is settable.
func decodeNode(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind == yaml.AliasNode {
		return errAt(n, path, "YAML aliases are not supported")
	}
	if n.Kind == yaml.SequenceNode && reflect.PointerTo(v.Type()).Implements(listUnmarshaler) {
		return decodeList(n, v, path)
	}
	if reflect.PointerTo(v.Type()).Implements(scalarUnmarshaler) {
		if err := v.Addr().Interface().(ScalarUnmarshaler).UnmarshalScalar(n.ShortTag(), n.Value, describe(n)); err != nil {
			return errAt(n, path, "%v", err)
		}
		return nil
	}
	if reflect.PointerTo(v.Type()).Implements(textUnmarshaler) {
		return decodeText(n, v, path)
	}
	switch v.Kind() {
	case reflect.Struct:
		return decodeStruct(n, v, path)
	case reflect.Slice:
		return decodeSlice(n, v, path)
	}
	return decodeScalar(n, v, path)
}

// decodeList hands a list's items to the field's UnmarshalList.
func decodeList(n *yaml.Node, v reflect.Value, path string) error {
	items := make([]Scalar, len(n.Content))
	for i, item := range n.Content {
		items[i] = Scalar{Tag: item.ShortTag(), Text: item.Value, Got: describe(item)}
		if item.Kind != yaml.ScalarNode {
			items[i].Text = ""
		}
	}
	err := v.Addr().Interface().(ListUnmarshaler).UnmarshalList(items)
	var ie *ItemError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ie) && ie.Index >= 0 && ie.Index < len(n.Content):
		return errAt(n.Content[ie.Index], fmt.Sprintf("%s[%d]", path, ie.Index), "%v", ie.Err)
	}
	return errAt(n, path, "%v", err)
}

// decodeText hands a scalar's text to the field's UnmarshalText.
func decodeText(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return errAt(n, path, "want a value such as \"500ms\", got %s", describe(n))
	}
	if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(n.Value)); err != nil {
		return errAt(n, path, "%v", err)
	}
	return nil
}

// decodeStruct decodes a mapping field by field.
func decodeStruct(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.MappingNode || n.ShortTag() != "!!map" {
		return errAt(n, path, "want a mapping of fields, got %s", describe(n))
	}
	fields := fieldsOf(v.Type())
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return errAt(k, path, "want a field name, got %s", describe(k))
		}
		at := join(path, k.Value)
		idx, ok := fields[k.Value]
		if !ok {
			return errAt(k, at, "unknown field (known: %s)", strings.Join(fieldNames(v.Type()), ", "))
		}
		if first, dup := seen[k.Value]; dup {
			return &fieldError{path: at, msg: fmt.Sprintf("given twice (lines %d and %d)", first, k.Line)}
		}
		seen[k.Value] = k.Line
		if err := decodeNode(val, v.Field(idx), at); err != nil {
			return err
		}
	}
	return nil
}

// decodeSlice decodes a sequence, each element starting from its defaults.
func decodeSlice(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.SequenceNode || n.ShortTag() != "!!seq" {
		return errAt(n, path, "want a list, got %s", describe(n))
	}
	out := reflect.MakeSlice(v.Type(), 0, len(n.Content))
	for i, item := range n.Content {
		elem := reflect.New(v.Type().Elem()).Elem()
		if err := setDefaults(elem); err != nil {
			return err
		}
		if err := decodeNode(item, elem, fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
		out = reflect.Append(out, elem)
	}
	v.Set(out)
	return nil
}

// decodeScalar decodes a string, bool, integer or float of the right YAML type.
func decodeScalar(n *yaml.Node, v reflect.Value, path string) error {
	want, tags := scalarWant(v.Kind())
	if want == "" {
		return errAt(n, path, "cannot decode into a Go %s", v.Type())
	}
	if n.Kind != yaml.ScalarNode || !tags[n.ShortTag()] {
		return errAt(n, path, "want %s, got %s", want, describe(n))
	}
	target := reflect.New(v.Type())
	if err := n.Decode(target.Interface()); err != nil {
		return errAt(n, path, "want %s, got %s", want, describe(n))
	}
	v.Set(target.Elem())
	return nil
}

// scalarWant names what a Go kind wants and the YAML tags that give it.
func scalarWant(k reflect.Kind) (string, map[string]bool) {
	switch k {
	case reflect.String:
		return "a string", map[string]bool{"!!str": true}
	case reflect.Bool:
		return "true or false", map[string]bool{"!!bool": true}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer", map[string]bool{"!!int": true}
	case reflect.Float32, reflect.Float64:
		return "a number", map[string]bool{"!!int": true, "!!float": true}
	}
	return "", nil
}

// describe names what a node holds, for an error message.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.ShortTag() == "!!null" {
		return "null"
	}
	s := n.Value
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return fmt.Sprintf("%q", s)
}

var plainName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// join extends a field path; odd names are quoted so the path stays one line.
func join(path, name string) string {
	if !plainName.MatchString(name) {
		if len(name) > 40 {
			name = name[:40] + "..."
		}
		name = fmt.Sprintf("%q", name)
	}
	if path == "" {
		return name
	}
	return path + "." + name
}

// fieldsOf maps the yaml names of t's fields to their index.
func fieldsOf(t reflect.Type) map[string]int {
	out := map[string]int{}
	for i := 0; i < t.NumField(); i++ {
		if name := yamlName(t.Field(i)); name != "" {
			out[name] = i
		}
	}
	return out
}

// fieldNames lists the yaml names of t's fields in declaration order.
func fieldNames(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if name := yamlName(t.Field(i)); name != "" {
			out = append(out, name)
		}
	}
	return out
}

// yamlName is a field's name in a file; "" for a field not in files.
func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if !f.IsExported() || name == "-" {
		return ""
	}
	return name
}
