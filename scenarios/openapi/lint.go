package openapi

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/idemchaos/idemchaos/targets/api"
)

// Lint checks the documented contract of the operation called name (""
// every one that declares an idempotency key header) against profile p,
// and returns one line per gap (none: the description documents the
// contract). An operation it cannot find is an error.
func (d *Doc) Lint(name string, p api.Profile) ([]string, error) {
	ops := d.Keyed()
	if name != "" || len(ops) == 0 {
		o, err := d.Pick(name)
		if err != nil {
			return nil, err
		}
		ops = []Operation{o}
	}
	var gaps []string
	for _, o := range ops {
		gaps = append(gaps, o.Lint(p)...)
	}
	return gaps, nil
}

// refusal is the set of statuses a profile answers, one of them, and when.
type refusal struct {
	statuses api.Statuses
	when     string
}

// refusals are the statuses profile p answers to the misuses of a key.
func refusals(p api.Profile) []refusal {
	var out []refusal
	if p.MissingKey != 0 {
		out = append(out, refusal{api.Statuses{p.MissingKey}, "a request without a key"})
	}
	if !p.InFlightWait {
		out = append(out, refusal{p.InFlightSet(), "a duplicate sent while the first runs"})
	}
	return append(out, refusal{p.MismatchSet(), "a key reused with another body"})
}

// Lint checks o's documented contract against profile p: the key header
// declared (required when p refuses a request without a key, optional when
// it serves one), for each of p's refusals a status of its set documented
// (any one: the service answers one of them), every documented one with
// a body, and p's replay marker documented on the success answers.
func (o Operation) Lint(p api.Profile) []string {
	name := o.Name()
	var gaps []string
	switch h := o.KeyHeader(); {
	case h == nil:
		gaps = append(gaps, fmt.Sprintf("%s: no idempotency key header parameter declared", name))
	case p.MissingKey != 0 && !h.Required:
		gaps = append(gaps, fmt.Sprintf("%s: header %s is optional, but profile %s refuses a request without it (%d): declare it required: true",
			name, h.Name, p.Name, p.MissingKey))
	case p.MissingKey == 0 && h.Required:
		gaps = append(gaps, fmt.Sprintf("%s: header %s is required, but profile %s serves a request without it: declare it required: false",
			name, h.Name, p.Name))
	}
	missing, bodiless := map[string]bool{}, map[int]bool{}
	for _, r := range refusals(p) {
		documented := false
		for _, s := range r.statuses {
			resp := o.response(s)
			if resp == nil {
				continue
			}
			documented = true
			if jsonSchema(resp.Content) == nil && !bodiless[s] {
				bodiless[s] = true
				gaps = append(gaps, fmt.Sprintf("%s: the %d response documents no JSON body (profile %s answers it to %s)", name, s, p.Name, r.when))
			}
		}
		if set := r.statuses.String(); !documented && !missing[set] {
			missing[set] = true
			gaps = append(gaps, fmt.Sprintf("%s: no %s response documented (profile %s answers %s to %s)", name, set, p.Name, oneOf(r.statuses), r.when))
		}
	}
	if p.ReplayHeader != "" && !o.documentsReplay(p.ReplayHeader) {
		gaps = append(gaps, fmt.Sprintf("%s: no success response documents the %s header (profile %s marks every replay with it)",
			name, p.ReplayHeader, p.Name))
	}
	return gaps
}

// oneOf is how a gap refers to the statuses of a set: "it", or "one of
// them".
func oneOf(set api.Statuses) string {
	if len(set) == 1 {
		return "it"
	}
	return "one of them"
}

// documentsReplay reports whether a success answer documents header h.
func (o Operation) documentsReplay(h string) bool {
	for _, r := range o.successResponses(nil) {
		for name := range r.Headers {
			if strings.EqualFold(name, h) {
				return true
			}
		}
	}
	return false
}

// Undocumented says, one line per status, which statuses of counts (status
// -> answers) o does not document: neither the status, nor its range,
// nor a default response.
func (o Operation) Undocumented(counts map[int]int) []string {
	if o.responses()["default"] != nil {
		return nil
	}
	statuses := make([]int, 0, len(counts))
	for s := range counts {
		statuses = append(statuses, s)
	}
	slices.Sort(statuses)
	var out []string
	for _, s := range statuses {
		if s == 0 || o.response(s) != nil {
			continue
		}
		times := "once"
		if n := counts[s]; n > 1 {
			times = strconv.Itoa(n) + " times"
		}
		out = append(out, fmt.Sprintf("the service answered %d (%s), which the description does not document for %s", s, times, o.Name()))
	}
	return out
}
