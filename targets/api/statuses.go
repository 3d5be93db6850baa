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
func (s Statuses) String() string {
	var b strings.Builder
	for i, st := range s {
		switch {
		case i == 0:
		case i == len(s)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(st))
	}
	return b.String()
}
