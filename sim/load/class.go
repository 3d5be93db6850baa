package load

import (
	"net/http"
	"strings"

	"github.com/idemchaos/idemchaos/sim/history"
)

// Classes of a request's end. Conflict (a 409 for a duplicate in flight) is
// the contract at work, not an error.
const (
	ClassOK       = "2xx"
	ClassConflict = "409"
	Class4xx      = "4xx"     // any other 4xx: 400, 402, 404, 422 ...
	Class5xx      = "5xx"     // the target answered with a failure
	ClassTimeout  = "timeout" // no answer within the client's per-try timeout
	ClassReset    = "reset"   // the connection broke after the request was sent
	ClassRefused  = "refused" // never sent: the dial failed
	ClassOther    = "other"
)

// ErrorClasses lists the classes that count as errors, in report order.
func ErrorClasses() []string {
	return []string{ClassTimeout, ClassReset, Class5xx, Class4xx, ClassRefused, ClassOther}
}

// Class classifies how an attempt ended.
func Class(a history.Attempt) string {
	switch {
	case a.Status/100 == 2:
		return ClassOK
	case a.Status == http.StatusConflict:
		return ClassConflict
	case a.Status/100 == 4:
		return Class4xx
	case a.Status >= 500:
		return Class5xx
	case a.Outcome == history.NotSent:
		return ClassRefused
	case strings.HasPrefix(a.Err, "timeout") || strings.Contains(a.Err, "deadline exceeded"):
		return ClassTimeout
	case strings.Contains(a.Err, "reset") || strings.Contains(a.Err, "EOF") || strings.Contains(a.Err, "broken pipe"):
		return ClassReset
	}
	return ClassOther
}

// Errors counts the samples per error class; classes with no sample are
// absent.
func Errors(samples []Sample) map[string]int {
	out := map[string]int{}
	for _, s := range samples {
		switch c := Class(s.Attempt); c {
		case ClassOK, ClassConflict:
		default:
			out[c]++
		}
	}
	return out
}
