package narrate

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
)

// TestRedisRetryTellsWhatItObserved: the retry, the false, nil and the
// poisoned key only when the run saw them; the error when there was no retry.
func TestRedisRetryTellsWhatItObserved(t *testing.T) {
	retried := scenarios.RedisRetry{Applied: true, Sets: 2, Dials: 1, Holder: "the caller"}
	lines, poisoned := RedisRetry(retried)
	text := strings.Join(lines, "\n")
	for _, want := range []string{"2. Redis applies it", "2 SET commands on the wire for one call",
		"the caller gets false, nil", "7. POISONED BY ITSELF"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	if !poisoned {
		t.Error("the retried SET NX is not told as poisoning the caller's key")
	}
	lines, poisoned = RedisRetry(scenarios.RedisRetry{MaxRetries: -1, Applied: true, Sets: 1, Err: "EOF", Holder: "the caller"})
	text = strings.Join(lines, "\n")
	if poisoned || strings.Contains(text, "POISONED") || !strings.Contains(text, "the caller gets an error (EOF)") ||
		!strings.Contains(text, "1 SET command on the wire") {
		t.Errorf("poisoned %v without a retry:\n%s", poisoned, text)
	}
}
