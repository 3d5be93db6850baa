package provision

import (
	"fmt"
	"strings"
)

// UnavailableError is returned when nothing can serve a store. Its message
// is one line and ends with the exact install command, e.g.
//
//	no postgres available: no Docker engine, no postgres binaries found (...); install with: sudo apt-get install -y postgresql
//
// Start returns it as a *UnavailableError; use errors.As.
type UnavailableError struct {
	Service string // "redis", "postgres" or "mysql"
	Hint    string // install command
	Err     error  // why each source failed
}

func (e *UnavailableError) Error() string {
	return oneLine(fmt.Sprintf("no %s available: %v; install with: %s", e.Service, e.Err, e.Hint))
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// lineError keeps a wrapped error but prints it on one line.
type lineError struct {
	msg string
	err error
}

func (e *lineError) Error() string { return e.msg }
func (e *lineError) Unwrap() error { return e.err }

// wrapLine wraps err with a prefix and flattens the message to one line.
func wrapLine(err error, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...) + ": " + err.Error()
	return &lineError{msg: oneLine(msg), err: err}
}

// oneLine joins the non-empty lines of s with " | ".
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	var kept []string
	for _, l := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if l = strings.TrimSpace(l); l != "" {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, " | ")
}

// legacyMask replaces a secret in provision's own messages.
const legacyMask = "***"

// redact hides the secrets of a URL or DSN in provision's messages:
// scheme://user:***@host/..., password=*** (see Redact), with the userinfo
// found as RFC 3986 has it. Use it for URLs that parsed; redactAs for raw
// input.
func redact(raw string) string { return redactRFC(raw, legacyMask) }
