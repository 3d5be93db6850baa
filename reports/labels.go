package reports

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// moneyOf is an amount in minor units in major units with the currency of
// the plans: "12.50 EUR".
func moneyOf(minor int64) string { return Money(minor) + " " + workload.Currency }

// moneyIn is an amount in minor units in major units with currency ("":
// the plans' own), as a result states it: client mode's API charges usd.
func moneyIn(minor int64, currency string) string {
	return check.Amount(minor, strings.ToUpper(cmp.Or(currency, workload.Currency)))
}

// attemptFlags lists what the attempts table marks beside the status.
func attemptFlags(a history.Attempt) string {
	applied := ""
	if a.Applied != nil {
		applied = map[bool]string{true: "applied", false: "not applied"}[*a.Applied]
	}
	return joinNonEmpty(flag(a.Replayed, "replayed"), flag(a.Hidden, "hidden re-send"), flag(a.ReplayProbe, "replay probe"),
		flag(a.Reused, "reused conn"), applied)
}

func statusText(code int) string {
	if code == 0 {
		return ""
	}
	return strconv.Itoa(code)
}

func statusClass(code int) string {
	switch {
	case code >= 500:
		return "s5xx"
	case code >= 400:
		return "s4xx"
	case code >= 200 && code < 300:
		return "s2xx"
	}
	return "sother"
}

func flag(on bool, word string) string {
	if on {
		return word
	}
	return ""
}

func joinNonEmpty(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " · ")
}

// shorten cuts s to n runes, marking the cut.
func shorten(s string, n int) string {
	r := []rune(oneLine(s))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}
