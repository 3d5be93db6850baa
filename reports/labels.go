package reports

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/idemchaos/idemchaos/sim/history"
)

// attemptLabel: attempt id, status or error, charge id, replayed.
func attemptLabel(a history.Attempt) string {
	answer := statusText(a.Status)
	if answer == "" {
		answer = shorten(a.Err, 40)
	}
	if answer == "" {
		answer = string(a.Outcome)
	}
	return joinNonEmpty(a.ID, answer, a.ChargeID, flag(a.Replayed, "replayed"), flag(a.Hidden, "hidden"),
		flag(a.ReplayProbe, "replay probe"))
}

func attemptTitle(a history.Attempt) string {
	s := fmt.Sprintf("attempt %s (op %d, try %d) to replica %d: sent %s, returned %s, %s",
		a.ID, a.Op, a.Try, a.Replica, msText(a.Call), msText(a.Return), a.Outcome)
	if a.Err != "" {
		s += ", error: " + a.Err
	}
	if a.Server == nil {
		s += "; no server logged it"
	}
	return s + "; amount " + Money(a.Amount) + ", fingerprint " + a.Fingerprint
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
