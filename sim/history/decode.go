package history

import (
	"time"
	"unicode/utf8"
)

// decodeAttempt decodes one attempt line as WriteJSONL writes it, without
// reflection, into a (which must be zero). It reports false for any line
// outside that shape (a field it does not know or meets twice,
// null, a number that is not a plain integer in range, a surrogate escape,
// invalid UTF-8, malformed JSON): the caller then decodes the line with
// encoding/json, so every line decodes to what encoding/json makes of it.
// The fuzz target FuzzDecodeAttempt holds it to that.
func decodeAttempt(line []byte, a *Attempt) bool {
	var d decoder
	return d.attempt(line, a)
}

// attempt decodes one line, as decodeAttempt; d may be reused from line
// to line.
func (d *decoder) attempt(line []byte, a *Attempt) bool {
	d.b, d.i = line, 0
	ok := d.object(func(name []byte) bool { return d.attemptField(name, a) })
	d.space()
	return ok && d.i == len(d.b)
}

// decoder reads b from i on; every method reports false when the input is
// not the shape it accepts.
type decoder struct {
	b    []byte
	i    int
	seen uint32 // the fields of the object being read met, by bit, to refuse a field met twice
	buf  []byte // scratch for strings with escapes
	// views and flags are where the attempts' server views and Applied
	// flags are allocated, a slab at a time: each attempt gets its own.
	views []ServerView
	flags []bool
}

// slabSize is how many server views or flags are allocated together.
const slabSize = 1024

func (d *decoder) view() *ServerView {
	if len(d.views) == cap(d.views) {
		d.views = make([]ServerView, 0, slabSize)
	}
	d.views = append(d.views, ServerView{})
	return &d.views[len(d.views)-1]
}

func (d *decoder) flag(v bool) *bool {
	if len(d.flags) == cap(d.flags) {
		d.flags = make([]bool, 0, slabSize)
	}
	d.flags = append(d.flags, v)
	return &d.flags[len(d.flags)-1]
}

// object reads {"name":value,...}, field calling read on each name with i
// at its value.
func (d *decoder) object(field func(name []byte) bool) bool {
	outer := d.seen
	d.seen = 0
	ok := d.members(field)
	d.seen = outer
	return ok
}

func (d *decoder) members(field func(name []byte) bool) bool {
	if !d.byte('{') {
		return false
	}
	if d.byte('}') {
		return true
	}
	for {
		name, ok := d.name()
		if !ok || !d.byte(':') || !field(name) {
			return false
		}
		if d.byte('}') {
			return true
		}
		if !d.byte(',') {
			return false
		}
	}
}

// list reads a JSON array into *into as encoding/json does into a nil
// slice: null leaves it nil, [] makes it empty, elem reads each element
// into a zero T.
func list[T any](d *decoder, into *[]T, elem func(*T) bool) bool {
	if d.literal("null") {
		return true
	}
	if !d.byte('[') {
		return false
	}
	out := []T{}
	if d.byte(']') {
		*into = out
		return true
	}
	for {
		var v T
		if !elem(&v) {
			return false
		}
		if len(out) == cap(out) { // doubling: append grows a long slice by a quarter at a time
			out = append(make([]T, 0, 2*cap(out)+8), out...)
		}
		out = append(out, v)
		if d.byte(']') {
			*into = out
			return true
		}
		if !d.byte(',') {
			return false
		}
	}
}

// space skips JSON whitespace.
func (d *decoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// literal consumes word (true, false, null) if it is next.
func (d *decoder) literal(word string) bool {
	d.space()
	if len(d.b)-d.i >= len(word) && string(d.b[d.i:d.i+len(word)]) == word {
		d.i += len(word)
		return true
	}
	return false
}

// name reads a field name, which a known field never escapes.
func (d *decoder) name() ([]byte, bool) {
	if !d.byte('"') {
		return nil, false
	}
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		if c == '"' {
			d.i++
			return d.b[start : d.i-1], true
		}
		if c == '\\' || c < ' ' || c >= utf8.RuneSelf {
			return nil, false
		}
		d.i++
	}
	return nil, false
}

// once marks field bit as met, false if it was already.
func (d *decoder) once(bit uint) bool {
	if d.seen&(1<<bit) != 0 {
		return false
	}
	d.seen |= 1 << bit
	return true
}

func (d *decoder) attemptField(name []byte, a *Attempt) bool {
	switch string(name) {
	case "op":
		return d.once(0) && d.int(&a.Op)
	case "try":
		return d.once(1) && d.int(&a.Try)
	case "id":
		return d.once(2) && d.string(&a.ID)
	case "key":
		return d.once(3) && d.string(&a.Key)
	case "account":
		return d.once(4) && d.string(&a.Account)
	case "amount":
		return d.once(5) && d.int64(&a.Amount)
	case "fingerprint":
		return d.once(6) && d.string(&a.Fingerprint)
	case "replica":
		return d.once(7) && d.int(&a.Replica)
	case "fault":
		return d.once(8) && d.string(&a.Fault)
	case "call_ns":
		return d.once(9) && d.duration(&a.Call)
	case "return_ns":
		return d.once(10) && d.duration(&a.Return)
	case "status":
		return d.once(11) && d.int(&a.Status)
	case "outcome":
		var s string
		ok := d.once(12) && d.string(&s)
		a.Outcome = Outcome(s)
		return ok
	case "charge_id":
		return d.once(13) && d.string(&a.ChargeID)
	case "body":
		return d.once(14) && d.string(&a.Body)
	case "replayed":
		return d.once(15) && d.bool(&a.Replayed)
	case "err":
		return d.once(16) && d.string(&a.Err)
	case "reused":
		return d.once(17) && d.bool(&a.Reused)
	case "hidden":
		return d.once(18) && d.bool(&a.Hidden)
	case "replay_probe":
		return d.once(19) && d.bool(&a.ReplayProbe)
	case "hold_probe":
		return d.once(22) && d.bool(&a.HoldProbe)
	case "server":
		if !d.once(20) {
			return false
		}
		a.Server = d.view()
		return d.object(func(name []byte) bool { return d.serverField(name, a.Server) })
	case "late":
		if !d.once(23) {
			return false
		}
		a.Late = &Late{}
		return d.object(func(name []byte) bool { return d.lateField(name, a.Late) })
	case "applied":
		var v bool
		if !d.once(21) || !d.bool(&v) {
			return false
		}
		a.Applied = d.flag(v)
		return true
	}
	return false
}

func (d *decoder) lateField(name []byte, l *Late) bool {
	switch string(name) {
	case "at_ns":
		return d.once(0) && d.duration(&l.At)
	case "status":
		return d.once(1) && d.int(&l.Status)
	case "charge_id":
		return d.once(2) && d.string(&l.ChargeID)
	case "replayed":
		return d.once(3) && d.bool(&l.Replayed)
	}
	return false
}

func (d *decoder) serverField(name []byte, s *ServerView) bool {
	switch string(name) {
	case "replica":
		return d.once(0) && d.int(&s.Replica)
	case "start_ns":
		return d.once(1) && d.duration(&s.Start)
	case "end_ns":
		return d.once(2) && d.duration(&s.End)
	case "status":
		return d.once(3) && d.int(&s.Status)
	case "charge_id":
		return d.once(4) && d.string(&s.ChargeID)
	case "replayed":
		return d.once(5) && d.bool(&s.Replayed)
	case "claim_start_ns":
		return d.once(6) && d.duration(&s.ClaimStart)
	case "claim_end_ns":
		return d.once(7) && d.duration(&s.ClaimEnd)
	case "handled_ns":
		return d.once(8) && d.duration(&s.Handled)
	case "claim_waits":
		return d.once(9) && d.bool(&s.ClaimWaits)
	}
	return false
}

// byte consumes c if it is next, after whitespace.
func (d *decoder) byte(c byte) bool {
	d.space()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *decoder) int(v *int) bool {
	n, ok := d.integer()
	*v = int(n)
	return ok && int64(*v) == n // where int is 32 bits, a larger number is left to encoding/json
}

func (d *decoder) int64(v *int64) bool {
	n, ok := d.integer()
	*v = n
	return ok
}

func (d *decoder) duration(v *time.Duration) bool {
	n, ok := d.integer()
	*v = time.Duration(n)
	return ok
}

// integer reads -?(0|[1-9][0-9]*) that fits an int64 and is not followed
// by a fraction or an exponent.
func (d *decoder) integer() (int64, bool) {
	neg := d.byte('-')
	start := d.i
	var u uint64
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		if u > (1<<63)/10 {
			return 0, false
		}
		u = u*10 + uint64(d.b[d.i]-'0')
		d.i++
	}
	n := d.i - start
	if n == 0 || n > 1 && d.b[start] == '0' || u > 1<<63 || u == 1<<63 && !neg {
		return 0, false
	}
	if d.i < len(d.b) && (d.b[d.i] == '.' || d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		return 0, false
	}
	if neg {
		return -int64(u), true // -int64(1<<63) wraps to the minimum, as wanted
	}
	return int64(u), true
}

func (d *decoder) bool(v *bool) bool {
	switch {
	case d.literal("true"):
		*v = true
		return true
	case d.literal("false"):
		*v = false
		return true
	}
	return false
}

// string reads a JSON string: plain bytes are copied once, escapes other
// than a surrogate \u are decoded as encoding/json does.
func (d *decoder) string(v *string) bool {
	if !d.byte('"') {
		return false
	}
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			*v = string(d.b[start:d.i])
			d.i++
			return true
		case c == '\\':
			d.buf = append(d.buf[:0], d.b[start:d.i]...)
			return d.escaped(v)
		case c < ' ':
			return false
		case c < utf8.RuneSelf:
			d.i++
		default:
			r, size := utf8.DecodeRune(d.b[d.i:])
			if r == utf8.RuneError && size == 1 {
				return false
			}
			d.i += size
		}
	}
	return false
}

// escaped goes on reading a string at its first backslash, into buf.
func (d *decoder) escaped(v *string) bool {
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			*v = string(d.buf)
			d.i++
			return true
		case c == '\\':
			if !d.escape() {
				return false
			}
		case c < ' ':
			return false
		case c < utf8.RuneSelf:
			d.buf = append(d.buf, c)
			d.i++
		default:
			r, size := utf8.DecodeRune(d.b[d.i:])
			if r == utf8.RuneError && size == 1 {
				return false
			}
			d.buf = append(d.buf, d.b[d.i:d.i+size]...)
			d.i += size
		}
	}
	return false
}

// escapes are the one-letter escapes of JSON and what they stand for.
var escapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// escape decodes the escape at i into buf.
func (d *decoder) escape() bool {
	if d.i+1 >= len(d.b) {
		return false
	}
	e := d.b[d.i+1]
	if e != 'u' {
		if escapes[e] == 0 {
			return false
		}
		d.buf = append(d.buf, escapes[e])
		d.i += 2
		return true
	}
	if d.i+6 > len(d.b) {
		return false
	}
	var r rune
	for _, h := range d.b[d.i+2 : d.i+6] {
		var x byte
		switch {
		case h >= '0' && h <= '9':
			x = h - '0'
		case h >= 'a' && h <= 'f':
			x = h - 'a' + 10
		case h >= 'A' && h <= 'F':
			x = h - 'A' + 10
		default:
			return false
		}
		r = r<<4 | rune(x)
	}
	if r >= 0xD800 && r < 0xE000 { // a surrogate: left to encoding/json
		return false
	}
	d.buf = utf8.AppendRune(d.buf, r)
	d.i += 6
	return true
}
