package check

import (
	"fmt"
	"strings"

	"github.com/idemchaos/idemchaos/targets/api"
)

// Anomaly names one invariant the checker finds broken; the name is what
// reports and the JSON say ("double_charge").
type Anomaly string

// Kind is what an anomaly costs, in the order a report asks to fix them.
type Kind int

// The kinds of anomaly, the gravest first.
const (
	// KindMoney: money moved where it must not have (or the ledger and what
	// the client was told disagree), or will at the next retry.
	KindMoney Kind = iota
	// KindHold: every duplicate holds a connection, a worker and a client for
	// as long as the slowest charge: no money lost, a storm waiting.
	KindHold
	// KindContract: the service answers what its contract forbids (a wrong
	// replay, a poisoned key, a status) without moving money.
	KindContract
)

// Definition is everything idemchaos says of one anomaly, in one place:
// its codes, what it costs, its explanation, the profiles that permit it,
// the demo that shows it and, for an anomaly added with Register, how to
// find it. The reports, the narrator, the declared expectations and the
// conformance table all read it from here.
type Definition struct {
	Anomaly Anomaly
	Short   string // its code in a matrix cell ("dc")
	Kind    Kind
	// Deviation says it breaks only the letter of the contract, neither
	// the money nor what the client knows of it (another status than the
	// profile's, a held duplicate): a conformance table calls a library
	// that shows only such anomalies a deviation.
	Deviation bool
	Title     string // a few words
	What      string // what happened, in domain words
	Why       string // why it happens, in terms of the built-in strategies
	Avoid     string // which strategy or technique avoids it
	// Cause is why it happens in one sentence that names no strategy: a
	// demo says it, then the flaw of the strategy it shows.
	Cause string
	// Allowed reports whether a profile makes the anomaly a permitted
	// behaviour of the catalog's cells (nil: no profile does).
	Allowed func(api.Profile) bool `json:"-"`
	// Lesson is the demo that shows it to a room.
	Lesson Lesson
	// Find finds it in a run. The built-in anomalies are found by the
	// checker's own passes and leave it nil; an anomaly added with
	// Register must set it.
	Find func(Input) []Finding `json:"-"`
}

// Lesson is the demo that shows one anomaly: a scenario and a strategy of
// the catalogs, by name, and what the room sees.
type Lesson struct {
	Scenario, Strategy string
	Shows              string
}

// registry is every anomaly in its stable order (a finding's rank is its
// index): the built-in ones (anomalies.go), then those added by Register.
var registry = builtin[:len(builtin):len(builtin)]

// Register adds an anomaly the checker finds with d.Find, after the
// built-in ones. Call it from an init function, before any Run: the
// registry is not guarded. It panics on a definition without a name, a
// code, a title or a Find, or on a name or code already taken, as
// database/sql's Register does on a driver registered twice.
func Register(d Definition) Anomaly {
	switch {
	case d.Anomaly == "" || d.Short == "" || d.Title == "" || d.Find == nil:
		panic(fmt.Sprintf("check: anomaly %q needs a name, a code, a title and a Find", d.Anomaly))
	case d.Kind < KindMoney || d.Kind > KindContract:
		panic(fmt.Sprintf("check: anomaly %q: unknown kind %d", d.Anomaly, d.Kind))
	}
	for _, e := range append(registry[:len(registry):len(registry)], clientBuiltin[:]...) {
		if e.Anomaly == d.Anomaly || e.Short == d.Short {
			panic(fmt.Sprintf("check: anomaly %q (%s) is already registered", d.Anomaly, d.Short))
		}
	}
	registry = append(registry, d)
	return d.Anomaly
}

// Define returns the definition of an anomaly, of the server's or the
// client's (ClientDefinitions). A name the checker does not
// know gets a generic one that still names it, for a saved run of another
// version.
func Define(a Anomaly) Definition {
	for _, d := range registry {
		if d.Anomaly == a {
			return d
		}
	}
	for _, d := range clientBuiltin {
		if d.Anomaly == a {
			return d
		}
	}
	return Definition{Anomaly: a, Short: string(a), Kind: KindContract,
		Title: "Anomaly " + string(a),
		What:  "The checker reported an anomaly this version of idemchaos has no explanation for; the findings carry its evidence.",
		Why: "Idempotency breaks where the key is not claimed atomically with the money movement, where two stores drift " +
			"apart, or where a failed attempt leaves its key claimed or its error cached.",
		Avoid: "Claim the key, charge and store the response in one transaction (pg-tx), fingerprint the request body, " +
			"never cache a 5xx, and release claims on error."}
}

// AllowedBy reports whether profile makes the anomaly a permitted
// behaviour of the catalog's cells.
func (a Anomaly) AllowedBy(p api.Profile) bool {
	d := Define(a)
	return d.Allowed != nil && d.Allowed(p)
}

// Definitions lists every anomaly's definition, in the stable order.
func Definitions() []Definition { return append([]Definition(nil), registry...) }

// ByUrgency returns every anomaly in the order a report asks to fix them:
// money first, then holds, then the contract; within a kind, the stable
// order.
func ByUrgency() []Anomaly {
	var out []Anomaly
	for _, k := range []Kind{KindMoney, KindHold, KindContract} {
		for _, d := range registry {
			if d.Kind == k {
				out = append(out, d.Anomaly)
			}
		}
	}
	return out
}

// Anomalies returns every anomaly the checker knows, in its stable order.
func Anomalies() []Anomaly {
	out := make([]Anomaly, len(registry))
	for i, d := range registry {
		out[i] = d.Anomaly
	}
	return out
}

// Names returns the names of every anomaly, in the same order.
func Names() []string {
	out := make([]string, len(registry))
	for i, d := range registry {
		out[i] = string(d.Anomaly)
	}
	return out
}

// Short is the anomaly's code in a matrix cell ("dc"); a name the checker
// does not know is its own code.
func (a Anomaly) Short() string { return Define(a).Short }

// String is the anomaly's name.
func (a Anomaly) String() string { return string(a) }

// Join writes anomalies as "a, b".
func Join(as []Anomaly) string {
	names := make([]string, len(as))
	for i, a := range as {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}
