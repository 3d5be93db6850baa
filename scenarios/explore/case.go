package explore

import (
	"fmt"
	"strings"
)

// Case is what the requests of an exploration are: all of one key, each
// with A's payload or another.
type Case struct {
	Name string
	Doc  string
	// Other says which requests carry another payload than A's.
	Other [MaxRequests]bool
}

// The cases, one definition each.
var cases = []Case{
	{Name: "duplicate", Doc: "B a concurrent duplicate of A: the same key, the same payload"},
	{Name: "mismatch", Doc: "B reuses A's key with another payload", Other: [MaxRequests]bool{false, true, true}},
}

// Cases lists the cases, in catalog order.
func Cases() []Case { return cases }

// LookupCase returns the case named name.
func LookupCase(name string) (Case, error) {
	for _, c := range cases {
		if c.Name == name {
			return c, nil
		}
	}
	var known []string
	for _, c := range cases {
		known = append(known, c.Name)
	}
	return Case{}, fmt.Errorf("unknown case %q (known: %s)", name, strings.Join(known, ", "))
}
