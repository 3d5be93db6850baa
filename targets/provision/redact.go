package provision

import (
	"net/url"
	"strings"
)

// Mask is what Redact puts in place of a secret, as net/url's Redacted does.
const Mask = "xxxxx"

// Redact returns rawURL with every secret in it replaced by Mask, for log
// lines, error messages, documents and banners:
//
//   - the password of a URL's userinfo: postgres://user:secret@host/db
//     and redis://:secret@host become postgres://user:xxxxx@host/db and
//     redis://:xxxxx@host;
//   - the value of a password or sslpassword query parameter:
//     postgres://host/db?password=secret becomes ...?password=xxxxx;
//   - the value of a password or sslpassword keyword of a key=value DSN:
//     "host=h password='s e c'" becomes "host=h password=xxxxx".
//
// Everything else is kept byte for byte, so a URL without a secret is
// returned unchanged and stays usable; so is a string that is neither a URL
// nor a DSN. The userinfo is where url.Parse finds it when the URL parses
// with one; else it ends at the last '@' outside the query (a URL that
// parses with its '@' in the path: redis://a/b:secret@host), or at the last
// '@' of the string when the URL does not parse (a password with an
// unescaped '/', '?' or '#'). The password is what follows the userinfo's
// first ':'. A '?' in a user name, or in a password with no '#' before it,
// must be percent-encoded in a URL that otherwise parses: its query starts
// at that '?'.
func Redact(rawURL string) string { return redactAs(rawURL, Mask) }

// redactAs is Redact with another mask.
func redactAs(raw, mask string) string {
	i := schemeEnd(raw)
	if i < 0 {
		return redactKeywords(raw, mask)
	}
	rest := raw[i:]
	u, err := url.Parse(raw)
	var at int // index in rest of the '@' that ends the userinfo
	switch {
	case err != nil:
		at = strings.LastIndexByte(rest, '@')
	case u.User != nil:
		at = authorityAt(rest)
	default:
		at = outsideQueryAt(rest)
	}
	return raw[:i] + redactRest(rest, at, mask)
}

// outsideQueryAt returns the index of the last '@' of rest, a URL after
// "scheme://", that is not in its query (from a '?' before any '#' up to
// the next '#'), or -1.
func outsideQueryAt(rest string) int {
	q, h := strings.IndexByte(rest, '?'), strings.IndexByte(rest, '#')
	if q < 0 || h >= 0 && h < q {
		return strings.LastIndexByte(rest, '@')
	}
	if f := strings.IndexByte(rest[q:], '#'); f >= 0 {
		if at := strings.LastIndexByte(rest[q+f:], '@'); at >= 0 {
			return q + f + at
		}
	}
	return strings.LastIndexByte(rest[:q], '@')
}

// redactRFC is redactAs with the userinfo always found where RFC 3986 puts
// it.
func redactRFC(raw, mask string) string {
	i := schemeEnd(raw)
	if i < 0 {
		return redactKeywords(raw, mask)
	}
	return raw[:i] + redactRest(raw[i:], authorityAt(raw[i:]), mask)
}

// authorityAt returns the index of the '@' that ends the userinfo in rest,
// a URL after "scheme://", per RFC 3986 (the last '@' of the authority,
// which ends at the first '/', '?' or '#'), or -1.
func authorityAt(rest string) int {
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		rest = rest[:end]
	}
	return strings.LastIndexByte(rest, '@')
}

// redactRest masks the secrets of rest, a URL after "scheme://" whose
// userinfo ends at index at ('@'; -1: none).
func redactRest(rest string, at int, mask string) string {
	return redactQuery(maskUserinfo(rest, at, mask), mask)
}

// schemeEnd returns the index just past "scheme://" when s starts with a
// URL scheme (a letter, then letters, digits, '+', '-' or '.'), else -1.
func schemeEnd(s string) int {
	i := strings.Index(s, "://")
	if i < 1 {
		return -1
	}
	for j := 0; j < i; j++ {
		c := s[j]
		letter := 'a' <= c|0x20 && c|0x20 <= 'z'
		if !letter && (j == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return -1
		}
	}
	return i + 3
}

// maskUserinfo replaces the password of rest (a URL after "scheme://")
// whose userinfo ends at index at ('@'; -1: none): everything after the
// userinfo's first ':', when not empty.
func maskUserinfo(rest string, at int, mask string) string {
	if at < 0 {
		return rest
	}
	c := strings.IndexByte(rest[:at], ':')
	if c < 0 || c+1 == at {
		return rest
	}
	return rest[:c+1] + mask + rest[at:]
}

// redactQuery replaces the values of secret parameters in the query of rest
// (a URL after its authority), keeping every other byte.
func redactQuery(rest, mask string) string {
	q := strings.IndexByte(rest, '?')
	if q < 0 {
		return rest
	}
	query, frag := rest[q+1:], ""
	if h := strings.IndexByte(query, '#'); h >= 0 {
		query, frag = query[:h], query[h:]
	}
	params := strings.Split(query, "&")
	for i, p := range params {
		name, value, ok := strings.Cut(p, "=")
		if !ok || value == "" {
			continue
		}
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if isSecretKey(name) {
			params[i] = p[:len(p)-len(value)] + mask
		}
	}
	return rest[:q+1] + strings.Join(params, "&") + frag
}

// isSecretKey reports whether a query parameter or DSN keyword holds a secret.
func isSecretKey(name string) bool {
	return strings.EqualFold(name, "password") || strings.EqualFold(name, "sslpassword")
}

// redactKeywords replaces the values of secret keywords in a key=value DSN
// (libpq syntax: spaces around '=' allowed, a value either single-quoted
// with backslash escapes or running to the next unescaped space).
func redactKeywords(s, mask string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if i > 0 && !isSpace(s[i-1]) {
			i++
			continue
		}
		k := i
		for k < len(s) && isKeyChar(s[k]) {
			k++
		}
		v := skipSpaces(s, k)
		if k == i || v == len(s) || s[v] != '=' {
			i++
			continue
		}
		start := skipSpaces(s, v+1)
		end := valueEnd(s, start)
		if isSecretKey(s[i:k]) && end > start {
			b.WriteString(s[last:start])
			b.WriteString(mask)
			last = end
		}
		i = max(end, i+1)
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// valueEnd returns the end of the DSN value starting at i: the next
// unescaped space outside single quotes (a quoted value is one that starts
// with a quote; anything glued to its closing quote is taken with it).
func valueEnd(s string, i int) int {
	quoted := false
	for j := i; j < len(s); j++ {
		switch c := s[j]; {
		case c == '\\':
			j++
		case c == '\'' && (quoted || j == i):
			quoted = !quoted
		case !quoted && isSpace(c):
			return j
		}
	}
	return len(s)
}

func skipSpaces(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isKeyChar(c byte) bool {
	return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || c == '_'
}
