package client

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// header is a request's header lines as they go on the wire, checked as
// they are added: a name must be a token and a value must hold no control
// character but tab (a key read from a scenario file cannot smuggle a
// header of its own). The first bad field is err.
type header struct {
	lines []byte
	names []string // canonical, as sent
	err   error
}

func (h *header) add(name string, values ...string) {
	if h.err != nil {
		return
	}
	if !validName(name) {
		h.err = fmt.Errorf("invalid header field name %q", name)
		return
	}
	name = http.CanonicalHeaderKey(name)
	for _, v := range values {
		if !validValue(v) {
			h.err = fmt.Errorf("invalid header field value for %q", name)
			return
		}
		h.lines = append(h.lines, name...)
		h.lines = append(h.lines, ": "...)
		h.lines = append(h.lines, v...)
		h.lines = append(h.lines, "\r\n"...)
	}
	h.names = append(h.names, name)
}

// addMissing adds the fields of extra whose names are not there yet, in
// name order.
func (h *header) addMissing(extra http.Header) {
	names := make([]string, 0, len(extra))
	for k := range extra {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if !slices.Contains(h.names, http.CanonicalHeaderKey(k)) {
			h.add(k, extra[k]...)
		}
	}
}

// validName: a token (RFC 9110 5.1).
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// validValue: no control character but tab (RFC 9110 5.5).
func validValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
