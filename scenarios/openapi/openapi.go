// Package openapi reads a service's OpenAPI description (3.0 or 3.1, YAML
// or JSON) for what idemchaos needs of it: the charge operation that
// declares an idempotency key header, the request it expects (path, key
// header, a body template over the plan's account and amount), the
// statuses that mean charged and the charge id's field (Map); the
// idempotency contract the description documents, against a profile
// (Lint); and the statuses a run got that it does not document
// (Undocumented). Hints in the description's x-idemchaos-* extensions
// name what a field's name does not say.
package openapi

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// MaxBytes bounds a description file.
const MaxBytes = 8 << 20

// The hints a description may carry.
const (
	// HintField, on a property schema, says what the property is:
	// account, amount, currency or key in a request body; charge-id in a
	// success answer.
	HintField = "x-idemchaos-field"
	// HintKeyHeader: true, on a header parameter, says it carries the
	// idempotency key whatever its name.
	HintKeyHeader = "x-idemchaos-key-header"
	// HintReplayHeader: true, on a success answer's header, says it marks
	// a replay whatever its name.
	HintReplayHeader = "x-idemchaos-replay-header"
)

// Doc is a loaded description.
type Doc struct {
	t    *openapi3.T
	file string // "" when parsed from bytes
}

// Load reads and validates the description at path. References to other
// files or URLs are refused: the description is read alone.
func Load(path string) (*Doc, error) {
	data, err := readFile(path)
	if err == nil {
		var d *Doc
		if d, err = Parse(data); err == nil {
			d.file = path
			return d, nil
		}
	}
	return nil, fmt.Errorf("openapi %s: %w", path, err)
}

func readFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	if st.Size() > MaxBytes {
		return nil, fmt.Errorf("%d bytes; at most %d", st.Size(), MaxBytes)
	}
	return os.ReadFile(path)
}

// Parse reads and validates a description from YAML or JSON.
func Parse(data []byte) (*Doc, error) {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	t, err := loader.LoadFromData(data)
	if err != nil {
		return nil, oneLine(err)
	}
	if !strings.HasPrefix(t.OpenAPI, "3.0") && !strings.HasPrefix(t.OpenAPI, "3.1") {
		return nil, fmt.Errorf("openapi %q: want an OpenAPI 3.0 or 3.1 description", clip(t.OpenAPI))
	}
	if err := t.Validate(context.Background(), openapi3.DisableExamplesValidation()); err != nil {
		return nil, fmt.Errorf("invalid: %w", oneLine(err))
	}
	return &Doc{t: t}, nil
}

// File is where the description was read from ("" from bytes).
func (d *Doc) File() string { return d.file }

// Operation is one operation of the description.
type Operation struct {
	Method, Path string
	op           *openapi3.Operation
	params       openapi3.Parameters // the path item's and the operation's
}

// Name is the operation's id, or METHOD path when it has none.
func (o Operation) Name() string {
	if o.op != nil && o.op.OperationID != "" {
		return o.op.OperationID
	}
	return o.Method + " " + o.Path
}

// Operations lists every operation, by path then method.
func (d *Doc) Operations() []Operation {
	var out []Operation
	paths := d.t.Paths.Map()
	keys := make([]string, 0, len(paths))
	for k := range paths {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, p := range keys {
		item := paths[p]
		ops := item.Operations()
		methods := make([]string, 0, len(ops))
		for m := range ops {
			methods = append(methods, m)
		}
		slices.Sort(methods)
		for _, m := range methods {
			params := slices.Concat(item.Parameters, ops[m].Parameters)
			out = append(out, Operation{Method: strings.ToUpper(m), Path: p, op: ops[m], params: params})
		}
	}
	return out
}

// KeyHeader is the header parameter that carries the idempotency key: one
// named like Idempotency-Key, or marked with x-idemchaos-key-header: true.
func (o Operation) KeyHeader() *openapi3.Parameter {
	for _, ref := range o.params {
		p := ref.Value
		if p == nil || p.In != openapi3.ParameterInHeader {
			continue
		}
		if hinted(p.Extensions, HintKeyHeader) || strings.Contains(strings.ToLower(p.Name), "idempotency") {
			return p
		}
	}
	return nil
}

// Keyed lists the operations that declare an idempotency key header.
func (d *Doc) Keyed() []Operation {
	var out []Operation
	for _, o := range d.Operations() {
		if o.KeyHeader() != nil {
			out = append(out, o)
		}
	}
	return out
}

// Pick is the operation called name (its id, or METHOD path), or with
// name "" the one operation that declares an idempotency key header.
func (d *Doc) Pick(name string) (Operation, error) {
	if name != "" {
		var names []string
		for _, o := range d.Operations() {
			if o.Name() == name || o.Method+" "+o.Path == name {
				return o, nil
			}
			names = append(names, o.Name())
		}
		return Operation{}, fmt.Errorf("no operation %q (the description has: %s)", clip(name), strings.Join(names, ", "))
	}
	keyed := d.Keyed()
	switch len(keyed) {
	case 0:
		return Operation{}, fmt.Errorf("no operation declares an idempotency key header (a header parameter named like Idempotency-Key, or with %s: true): name one with --operation", HintKeyHeader)
	case 1:
		return keyed[0], nil
	}
	names := make([]string, len(keyed))
	for i, o := range keyed {
		names[i] = o.Name()
	}
	return Operation{}, fmt.Errorf("%d operations declare an idempotency key header (%s): pick one with --operation", len(keyed), strings.Join(names, ", "))
}

// hinted reports whether extension name is true in ext.
func hinted(ext map[string]any, name string) bool {
	v, ok := ext[name].(bool)
	return ok && v
}

// hint is the string value of extension name in ext ("" without one).
func hint(ext map[string]any, name string) string {
	v, _ := ext[name].(string)
	return v
}

func oneLine(err error) error {
	return errors.New(strings.Join(strings.Fields(err.Error()), " "))
}

func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
