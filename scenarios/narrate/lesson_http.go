package narrate

import (
	"fmt"

	"github.com/idemchaos/idemchaos/scenarios"
)

// HTTPResend tells one run of the net/http lesson step by step, from what
// it observed: the application's one call, the transport's writes, the
// server's log and the ledger. Doubled says the re-send charged again.
func HTTPResend(r scenarios.HTTPResend) (lines []string, doubled bool) {
	say := func(format string, args ...any) {
		lines = append(lines, fmt.Sprintf("%d. ", len(lines)+1)+fmt.Sprintf(format, args...))
	}
	conn := "a new connection"
	if r.Reused {
		conn = "the keep-alive connection a GET left idle"
	}
	say("the application calls Do once: POST /v1/charges with an Idempotency-Key, 12.00 on acct-1, on %s", conn)
	say("the server (%s) does the work of the request", r.Strategy)
	say("fault: the connection dies before a byte of the answer: the server closes it")
	if r.Writes > 1 {
		say("Go's Transport sees a reused connection end before any answer and the POST replayable (it carries "+
			"an Idempotency-Key): it writes the request again on a new connection, %s in all, on its own", times(r.Writes))
	} else {
		say("Go's Transport does not write it again: %d write", r.Writes)
	}
	answer := "an error: " + r.Err
	if r.Status != 0 {
		answer = fmt.Sprintf("%d", r.Status)
		if r.Replayed {
			answer += ", a replay of the first attempt's charge"
		}
	}
	say("the application gets %s: one call, one answer", answer)
	say("the harness: the server logged the attempt %s, the client sent it once; the merge marks %d hidden re-send",
		times(r.ServerSaw), r.Hidden)
	doubled = r.Charges > 1
	switch {
	case doubled:
		say("DOUBLE CHARGE: %d ledger charges for one call: without a key layer the re-send is charged again", r.Charges)
	case r.Charges == 1:
		say("one ledger charge: the key layer replays the re-send instead of charging it")
	default:
		say("no ledger charge")
	}
	return lines, doubled
}
