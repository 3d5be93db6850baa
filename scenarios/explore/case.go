package explore

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemchaos/idemchaos/targets/api"
)

// Answer names the end of a request, where a case may strike as at a
// point: its answer, lost on its way to the client.
const Answer = "answer"

// Every, as a case's point, stands for every point its kind strikes at
// (Expand).
const Every = "*"

// Kind is a kind of case: what the requests after the first are, and
// what strikes the first.
type Kind struct {
	Name string
	Doc  string
	// Other says which requests carry another payload than A's.
	Other [MaxRequests]bool
	// Lost: A's answer never reaches its client; the others are that
	// client's retries, sent once A has passed the case's point.
	Lost bool
	// Cut is the store link cut when A reaches the case's point, healed
	// when A is answered; the others are sent once A was answered. Cuts
	// land on a link every execution shares: such cases run one
	// execution at a time.
	Cut api.Action
	// Kill: A's process is killed as A reaches the case's point: every
	// store connection it had dies with it (what it had not committed is
	// rolled back) and its memory too; the others are its client's
	// retries, sent once A is dead, to the process that replaced it, on
	// the same stores. Kills share the stores' links like cuts: such cases
	// run one execution at a time.
	Kill bool
}

// AtPoints says whether the kind strikes at a point, a case per point.
func (k Kind) AtPoints() bool { return k.Lost || k.Cut != "" || k.Kill }

// Shares says whether the kind's executions strike something every
// execution shares (a store link), so that they run one at a time.
func (k Kind) Shares() bool { return k.Cut != "" || k.Kill }

// The kinds, one definition each.
var kinds = []Kind{
	{Name: "duplicate", Doc: "B a concurrent duplicate of A: the same key, the same payload"},
	{Name: "mismatch", Doc: "B reuses A's key with another payload", Other: [MaxRequests]bool{false, true, true}},
	{Name: "lost-reply", Doc: "A's answer is lost once A passed the point (or its answer itself); B is its client's retry", Lost: true},
	{Name: "pg-cut", Doc: "A's link to its SQL store is cut at the point until A is answered; B is the retry after", Cut: api.PGCut},
	{Name: "redis-cut", Doc: "A's link to Redis is cut at the point until A is answered; B is the retry after", Cut: api.RedisCut},
	{Name: "kill", Doc: "A's process is killed at the point, its store connections and memory with it; B is the retry, to the process restarted", Kill: true},
}

// Kinds lists the kinds of case, in catalog order.
func Kinds() []Kind { return kinds }

// LookupKind returns the kind named name.
func LookupKind(name string) (Kind, error) {
	for _, k := range kinds {
		if k.Name == name {
			return k, nil
		}
	}
	return Kind{}, fmt.Errorf("unknown case %q (known: %s)", name, strings.Join(KindNames(), ", "))
}

// KindNames lists the kinds' names.
func KindNames() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.Name
	}
	return out
}

// Case is what an exploration's requests are: a kind, and for a kind that
// strikes at a point, the point (a failpoint, or Answer).
type Case struct {
	Kind
	At string
}

// Name is the case's name: the kind's, with the point ("lost-reply@after-commit").
func (c Case) Name() string {
	if c.At == "" {
		return c.Kind.Name
	}
	return c.Kind.Name + "@" + c.At
}

// ParseCase reads a case name: a kind (one that strikes at a point: at
// every point, Every), or a kind and its point.
func ParseCase(s string) (Case, error) {
	name, at, _ := strings.Cut(s, "@")
	k, err := LookupKind(name)
	if err != nil {
		return Case{}, err
	}
	switch {
	case at == "" && k.AtPoints():
		return Case{Kind: k, At: Every}, nil
	case at != "" && !k.AtPoints():
		return Case{}, fmt.Errorf("case %q: %s strikes at no point", s, name)
	case at == Answer && !k.Lost:
		return Case{}, fmt.Errorf("case %q: %s strikes at a failpoint, not at the answer", s, name)
	case at != "" && at != Answer:
		if _, err := api.ParsePoint(at); err != nil {
			return Case{}, fmt.Errorf("case %q: %v", s, err)
		}
	}
	return Case{Kind: k, At: at}, nil
}

// Expand is the cases of kind k against a target whose request alone
// passes points, in order: k itself; for a cut, one case per point; for a
// lost reply, one per point from the charge on (before-commit, when the
// request passes it, else every point) and its answer.
func (k Kind) Expand(points []string) []Case {
	if !k.AtPoints() {
		return []Case{{Kind: k}}
	}
	from := 0
	if i := slices.Index(points, string(api.BeforeCommit)); k.Lost && i >= 0 {
		from = i
	}
	var out []Case
	for _, p := range points[from:] {
		out = append(out, Case{Kind: k, At: p})
	}
	if k.Lost {
		out = append(out, Case{Kind: k, At: Answer})
	}
	return out
}
