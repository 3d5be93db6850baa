package strategytest

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/idemchaos/idemchaos/targets/strategy"
)

// violations are the ways a strategy broke the contract in one case. An
// empty list is a pass. Problems of the test itself (a store that cannot
// be reached, a fault that did not fire) are not violations: they fail
// the test outright, so a broken harness never counts as a caught flaw.
type violations []string

func (v *violations) add(format string, args ...any) { *v = append(*v, fmt.Sprintf(format, args...)) }

// executed wants a fresh charge: 201, not a replay.
func (v *violations) executed(who string, r strategy.Response) {
	if r.Status != http.StatusCreated || r.Replayed {
		v.add("%s got %s; want a fresh 201 charge", who, show(r))
	}
}

// replayOf wants again to be first's answer, byte for byte, marked replayed.
func (v *violations) replayOf(who string, first, again strategy.Response) {
	if again.Status != first.Status || !bytes.Equal(again.Body, first.Body) || !again.Replayed {
		v.add("%s got %s; want the replay of %s", who, show(again), show(first))
	}
}

// charged wants exactly n ledger charges for the key.
func (v *violations) charged(got, want int) {
	if got != want {
		v.add("%d ledger charges for the key; want %d", got, want)
	}
}

// balanced wants the account to agree with its charges.
func (v *violations) balanced(drift int64) {
	if drift != 0 {
		v.add("the balance is %d off its opening balance minus its charges: money moved without its charge row", drift)
	}
}
