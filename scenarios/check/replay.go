package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/idemchaos/idemchaos/sim/history"
)

// ReplayCompare says how a 2xx for a key and payload must repeat the key's
// first 2xx. Status and charge id must always be the same; the body is
// compared byte for byte (the zero value), or, with JSON, as JSON
// documents, field for field: object members in any order, whitespace
// aside, numbers by value, and the fields named in Ignore left out. JSON
// is for a service that adds per-response metadata to its answers (a
// request id, a timestamp); the built-in targets compare bytes. A user's
// service is compared as JSON with Drift by default: a replay that holds
// the first answer's JSON in other bytes (a JSONB column renders its own
// key order and spacing) is then a deviation, shown, never a failure.
type ReplayCompare struct {
	JSON bool `json:"json,omitempty"`
	// Drift, with JSON, reports a replay whose bytes differ from the first
	// answer's while its JSON is the same as a deviation (once per key).
	Drift bool `json:"drift,omitempty"`
	// Ignore names the fields a JSON comparison leaves out, each a dotted
	// path of member names from the top-level object ("created",
	// "meta.request_id"); a path that goes through an array applies to
	// every element of it. A member name holding a dot cannot be named.
	Ignore []string `json:"ignore,omitempty"`
}

// Limits on the fields a comparison may ignore.
const (
	maxIgnored   = 32
	maxIgnoreLen = 200
)

// Check reports the first problem with r, or nil: fields to ignore
// without the JSON comparison, too many of them, or one that is not a
// dotted path of member names.
func (r ReplayCompare) Check() error {
	if len(r.Ignore) > 0 && !r.JSON {
		return errors.New("fields to ignore need the JSON comparison: byte for byte, every byte counts")
	}
	if r.Drift && !r.JSON {
		return errors.New("a byte drift is a deviation only under the JSON comparison")
	}
	if len(r.Ignore) > maxIgnored {
		return fmt.Errorf("%d fields to ignore: at most %d", len(r.Ignore), maxIgnored)
	}
	for _, p := range r.Ignore {
		if err := checkIgnorePath(p); err != nil {
			return err
		}
	}
	return nil
}

func checkIgnorePath(p string) error {
	shown := p
	if len(shown) > 40 {
		shown = short(shown) // a long path is shown by its start
	}
	switch {
	case len(p) > maxIgnoreLen:
		return fmt.Errorf("field to ignore %q: longer than %d bytes", shown, maxIgnoreLen)
	case !utf8.ValidString(p) || strings.IndexFunc(p, unicode.IsControl) >= 0:
		return fmt.Errorf("field to ignore %q: not printable text", shown)
	case strings.TrimSpace(p) != p:
		return fmt.Errorf("field to ignore %q: leading or trailing blanks", shown)
	case slices.Contains(strings.Split(p, "."), ""):
		return fmt.Errorf("field to ignore %q: want a dotted path of member names, as meta.request_id", shown)
	}
	return nil
}

// String describes the comparison in a sentence: "byte for byte", "as
// JSON", "as JSON, ignoring created and meta.request_id".
func (r ReplayCompare) String() string {
	switch {
	case !r.JSON:
		return "byte for byte"
	case len(r.Ignore) == 0:
		return "as JSON"
	}
	return "as JSON, ignoring " + list(slices.Clone(r.Ignore))
}

// DefaultReplay is how a user's service's replays are compared unless it
// says otherwise: as JSON, a byte-only difference a deviation.
func DefaultReplay() ReplayCompare {
	return ReplayCompare{JSON: true, Drift: true}
}

// ignoreNode is one level of the fields a JSON comparison leaves out.
type ignoreNode struct {
	leaf bool // the member ending here is left out, with all it holds
	next map[string]*ignoreNode
}

// compiledCompare is a ReplayCompare ready to use.
type compiledCompare struct {
	spec   ReplayCompare
	ignore *ignoreNode // nil: nothing ignored
}

func compileCompare(r ReplayCompare) compiledCompare {
	c := compiledCompare{spec: r}
	if !r.JSON {
		return c
	}
	for _, p := range r.Ignore {
		if c.ignore == nil {
			c.ignore = &ignoreNode{}
		}
		n := c.ignore
		for _, seg := range strings.Split(p, ".") {
			if n.next == nil {
				n.next = map[string]*ignoreNode{}
			}
			child := n.next[seg]
			if child == nil {
				child = &ignoreNode{}
				n.next[seg] = child
			}
			n = child
		}
		n.leaf = true
	}
	return c
}

// firstDoc caches the decoded body of a key's first 2xx, which every
// replay of the key is compared with.
type firstDoc struct {
	body string
	v    any
	err  error
	set  bool
}

func (d *firstDoc) decode(body string) (any, error) {
	if !d.set || d.body != body {
		d.v, d.err = decodeJSON(body)
		d.body, d.set = body, true
	}
	return d.v, d.err
}

// sameBody reports whether body repeats first under the comparison; when it
// does not, why says how they differ, in domain words. cache holds first's
// document from one call to the next.
func (c compiledCompare) sameBody(body, first string, cache *firstDoc) (same bool, why string) {
	if body == first {
		return true, ""
	}
	vb, errB := decodeJSON(body)
	vf, errF := cache.decode(first)
	if !c.spec.JSON {
		why = "byte for byte, " + firstDifference(body, first)
		if errB == nil && errF == nil {
			if paths := jsonDiff(vb, vf, nil); len(paths) > 0 {
				why += "; as JSON, " + fieldsDiffer(paths)
			} else {
				why += ", though both hold the same JSON"
			}
		}
		return false, why
	}
	switch {
	case errB != nil && errF != nil:
		return false, "neither body is JSON, and they differ " + firstDifference(body, first)
	case errB != nil:
		return false, "its body is not JSON"
	case errF != nil:
		return false, "the first 2xx's body is not JSON"
	}
	paths := jsonDiff(vb, vf, c.ignore)
	if len(paths) == 0 {
		return true, ""
	}
	return false, c.spec.String() + ", " + fieldsDiffer(paths)
}

// firstDifference says where two different strings first differ:
// "first at byte 41", "one is a prefix of the other (12 and 40 bytes)".
func firstDifference(a, b string) string {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return fmt.Sprintf("first at byte %d", i+1)
		}
	}
	return fmt.Sprintf("one is a prefix of the other (%d and %d bytes)", len(a), len(b))
}

// fieldsDiffer names the differing fields: "field created differs",
// "fields created and meta.request_id differ".
func fieldsDiffer(paths []string) string {
	names := make([]string, len(paths))
	for i, p := range paths {
		if p == "" {
			p = "(the top level)"
		}
		names[i] = p
	}
	if len(names) == 1 {
		return "field " + names[0] + " differs"
	}
	return "fields " + list(names) + " differ"
}

// decodeJSON reads one JSON document, numbers kept as written.
func decodeJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON document")
	}
	return v, nil
}

// jsonDiff lists, sorted and without repeats, the dotted paths where a and
// b differ, leaving out the members ign names. A path through an array is
// written without the element's index, as ignore paths are.
func jsonDiff(a, b any, ign *ignoreNode) []string {
	var out []string
	diffValue(a, b, ign, "", &out)
	slices.Sort(out)
	return slices.Compact(out)
}

func diffValue(a, b any, ign *ignoreNode, path string, out *[]string) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			*out = append(*out, path)
			return
		}
		diffObjects(x, y, ign, path, out)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			*out = append(*out, path)
			return
		}
		for i := range x {
			diffValue(x[i], y[i], ign, path, out)
		}
	case json.Number:
		y, ok := b.(json.Number)
		if !ok || !sameNumber(x, y) {
			*out = append(*out, path)
		}
	default: // string, bool, nil
		if a != b {
			*out = append(*out, path)
		}
	}
}

func diffObjects(x, y map[string]any, ign *ignoreNode, path string, out *[]string) {
	member := func(k string) (string, *ignoreNode, bool) {
		var next *ignoreNode
		if ign != nil {
			next = ign.next[k]
		}
		p := k
		if path != "" {
			p = path + "." + k
		}
		return p, next, next != nil && next.leaf
	}
	for k, vx := range x {
		p, next, skip := member(k)
		if skip {
			continue
		}
		vy, ok := y[k]
		if !ok {
			*out = append(*out, p)
			continue
		}
		diffValue(vx, vy, next, p, out)
	}
	for k := range y {
		if _, ok := x[k]; ok {
			continue
		}
		if p, _, skip := member(k); !skip {
			*out = append(*out, p)
		}
	}
}

// sameNumber compares two JSON numbers by value, exactly ("1.50" is
// "1.5e0"); a number with an exponent beyond maxExponent is compared as
// written, which bounds the work a hostile body can cause.
func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	if !smallExponent(string(a)) || !smallExponent(string(b)) {
		return false
	}
	x, okX := new(big.Rat).SetString(string(a))
	y, okY := new(big.Rat).SetString(string(b))
	return okX && okY && x.Cmp(y) == 0
}

// maxExponent bounds the exponent of a number compared by value.
const maxExponent = 400

func smallExponent(n string) bool {
	if len(n) > 100 {
		return false
	}
	i := strings.IndexAny(n, "eE")
	if i < 0 {
		return true
	}
	e, err := strconv.Atoi(strings.TrimPrefix(n[i+1:], "+"))
	return err == nil && e >= -maxExponent && e <= maxExponent
}

// replayNote is how a detail sentence names a replay probe after its id.
func replayNote(a *history.Attempt) string {
	if a.ReplayProbe {
		return ", a replay probe sent after the traffic,"
	}
	return ""
}
