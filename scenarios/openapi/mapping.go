package openapi

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/targets/api"
)

// Want is what the user said besides the description: the non-zero
// fields of Shape win over what Map derives (and need not be derivable),
// and AccountField, AmountField name the body's fields (dotted paths)
// where neither a hint nor the names account and amount do.
type Want struct {
	Shape                     client.Shape
	AccountField, AmountField string
}

// MapError says what an operation lacks to be a charge request.
type MapError struct {
	Operation string
	Missing   []string
}

func (e *MapError) Error() string {
	return fmt.Sprintf("operation %s cannot be mapped: %s", e.Operation, strings.Join(e.Missing, "; "))
}

// Map derives the request shape of o: its path, key header, body template,
// success statuses, charge id field and replay header, with w's fields
// winning. An operation that lacks one of them (and w does not give it)
// is a *MapError naming every one missing.
func (o Operation) Map(w Want) (client.Shape, error) {
	s := w.Shape
	var missing []string
	add := func(why string) {
		if why != "" {
			missing = append(missing, why)
		}
	}
	if o.Method != http.MethodPost {
		add(fmt.Sprintf("it is a %s: the harness sends a charge as a POST", o.Method))
	}
	if s.Path == "" {
		var why string
		s.Path, why = o.path()
		add(why)
	}
	if s.KeyHeader == "" {
		if p := o.KeyHeader(); p != nil {
			s.KeyHeader = p.Name
		} else {
			add("no idempotency key header parameter (give --key-header, or mark one with " + HintKeyHeader + ": true)")
		}
	}
	if s.Success == nil {
		var why string
		s.Success, why = o.success()
		add(why)
	}
	if s.Body == "" {
		var why string
		s.Body, why = o.body(w)
		add(why)
	}
	if s.ChargeID == "" {
		var why string
		s.ChargeID, why = o.chargeID(s.Success)
		add(why)
	}
	if s.ReplayHeader == "" {
		s.ReplayHeader = o.replayHeader(s.Success)
	}
	if len(missing) > 0 {
		return client.Shape{}, &MapError{Operation: o.Name(), Missing: missing}
	}
	return s, nil
}

// path is the operation's path, which the harness sends as it is.
func (o Operation) path() (string, string) {
	if strings.ContainsAny(o.Path, "{}") {
		return "", fmt.Sprintf("its path %s has parameters (give --path)", o.Path)
	}
	return o.Path, ""
}

// success lists the 2xx statuses documented (nil: a 2XX range, any 2xx).
func (o Operation) success() ([]int, string) {
	var codes []int
	ranged := false
	for k := range o.responses() {
		switch n, err := strconv.Atoi(k); {
		case err == nil && n/100 == 2:
			codes = append(codes, n)
		case strings.EqualFold(k, "2XX"):
			ranged = true
		}
	}
	slices.Sort(codes)
	switch {
	case len(codes) > 0:
		return codes, ""
	case ranged:
		return nil, ""
	}
	return nil, "no 2xx response documented (give --success-status)"
}

// responses are the operation's documented answers by status key.
func (o Operation) responses() map[string]*openapi3.ResponseRef {
	if o.op.Responses == nil {
		return nil
	}
	return o.op.Responses.Map()
}

// response is the documented answer to status (its own, else its range).
func (o Operation) response(status int) *openapi3.Response {
	rs := o.responses()
	for _, k := range []string{strconv.Itoa(status), strconv.Itoa(status/100) + "XX", strconv.Itoa(status/100) + "xx"} {
		if r := rs[k]; r != nil && r.Value != nil {
			return r.Value
		}
	}
	return nil
}

// successResponses are the answers documented for the success statuses
// (every 2xx one when success is nil).
func (o Operation) successResponses(success []int) []*openapi3.Response {
	var out []*openapi3.Response
	keys := make([]string, 0)
	for k := range o.responses() {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		n, err := strconv.Atoi(k)
		ok := err == nil && (slices.Contains(success, n) || success == nil && n/100 == 2) || strings.EqualFold(k, "2XX")
		if r := o.responses()[k]; ok && r.Value != nil {
			out = append(out, r.Value)
		}
	}
	return out
}

// chargeID is the dotted path of the charge id in a success answer: the
// property hinted charge-id, else a top-level id.
func (o Operation) chargeID(success []int) (string, string) {
	for _, r := range o.successResponses(success) {
		sch := jsonSchema(r.Content)
		if sch == nil {
			continue
		}
		if p := hintedPath(sch, "charge-id"); p != "" {
			return p, ""
		}
		if _, ok := properties(sch)["id"]; ok {
			return "id", ""
		}
	}
	return "", fmt.Sprintf("no charge id field: no success answer's JSON schema has an id property (mark one with %s: charge-id, or give --charge-id-field)", HintField)
}

// replayHeader is the success answers' header that marks a replay ("":
// none documented, the default).
func (o Operation) replayHeader(success []int) string {
	for _, r := range o.successResponses(success) {
		for name, h := range r.Headers {
			if strings.EqualFold(name, api.HeaderReplayed) || h.Value != nil && hinted(h.Value.Extensions, HintReplayHeader) {
				return name
			}
		}
	}
	return ""
}

// jsonSchema is the schema of content's JSON media type (nil: none).
func jsonSchema(c openapi3.Content) *openapi3.Schema {
	mt := jsonMedia(c)
	if mt == nil || mt.Schema == nil {
		return nil
	}
	return mt.Schema.Value
}

func jsonMedia(c openapi3.Content) *openapi3.MediaType {
	if c == nil {
		return nil
	}
	return c.Get("application/json")
}
