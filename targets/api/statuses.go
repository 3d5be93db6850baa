package api

import (
	"slices"
	"strconv"
	"strings"
)

// Statuses is a set of statuses a profile allows for one situation, the
// one the built-in targets answer first.
type Statuses []int

// Has reports whether status is in the set.
func (s Statuses) Has(status int) bool { return slices.Contains(s, status) }

// String names the set as a sentence does: "409", "409 or 425",
// "409, 425 or 429".
func (s Statuses) String() string { return s.Names(strconv.Itoa) }

// Names names the set as String does, each status as name gives it
// ("409 Conflict or 425 Too Early").
func (s Statuses) Names(name func(int) string) string {
	var b strings.Builder
	for i, st := range s {
		switch {
		case i == 0:
		case i == len(s)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(name(st))
	}
	return b.String()
}
