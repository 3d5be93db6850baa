package reports

import (
	"strconv"
	"strings"
)

// anchors hands out the page's ids: made of the data's own names
// ("redis-sticky/db-fault-mid-request/seed-3"), URL-safe, and unique (a
// second use of one gets "-2"). Every id it makes has a slash, so none
// collides with the page's fixed ids.
type anchors map[string]bool

func (a anchors) id(parts ...string) string {
	for i, p := range parts {
		parts[i] = slug(p)
	}
	base := strings.Join(parts, "/")
	id := base
	for n := 2; a[id]; n++ {
		id = base + "-" + strconv.Itoa(n)
	}
	a[id] = true
	return id
}

// slug keeps the letters, digits, dots, dashes and underscores of s and
// makes every other rune a dash.
func slug(s string) string {
	if s == "" {
		return "-"
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '-'
	}, s)
}
