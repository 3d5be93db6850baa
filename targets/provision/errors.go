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
	Service string // "redis" or "postgres"
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

// redact hides the password of a URL: scheme://user:***@host/...
// It works on strings url.Parse rejects, so it never leaks a password
// through a parse error.
func redact(raw string) string {
	i := strings.Index(raw, "://")
	if i < 0 {
		return raw
	}
	head, rest := raw[:i+3], raw[i+3:]
	authority := rest
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		authority = rest[:end]
	}
	at := strings.LastIndex(authority, "@")
	if at < 0 {
		return raw
	}
	user := authority[:at]
	if c := strings.Index(user, ":"); c >= 0 {
		user = user[:c] + ":***"
	}
	return head + user + authority[at:] + rest[len(authority):]
}
