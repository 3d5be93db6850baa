package narrate

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
)

// TestHTTPResendTellsWhatItObserved: the re-send, the server's count
// against the client's and the double charge only when the run saw them.
func TestHTTPResendTellsWhatItObserved(t *testing.T) {
	lines, doubled := HTTPResend(scenarios.HTTPResend{Strategy: "none", Reused: true, Writes: 2, ServerSaw: 2, Hidden: 1,
		Charges: 2, Status: 201})
	text := strings.Join(lines, "\n")
	for _, want := range []string{"a GET left idle", "writes the request again on a new connection, twice in all",
		"logged the attempt twice, the client sent it once", "marks 1 hidden re-send", "7. DOUBLE CHARGE: 2 ledger charges"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	if !doubled {
		t.Error("two charges are not told as doubled")
	}
	lines, doubled = HTTPResend(scenarios.HTTPResend{Strategy: "pg-tx", Reused: true, Writes: 2, ServerSaw: 2, Hidden: 1,
		Charges: 1, Status: 201, Replayed: true})
	text = strings.Join(lines, "\n")
	if doubled || strings.Contains(text, "DOUBLE") || !strings.Contains(text, "a replay of the first attempt's charge") {
		t.Errorf("doubled %v with a replay:\n%s", doubled, text)
	}
}
