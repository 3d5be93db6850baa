package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/narrate"
)

// RedisRetryTitle heads the go-redis lesson.
const RedisRetryTitle = "demo: " + scenarios.LessonGoRedisRetry + ", go-redis v9 re-sends a SET NX whose reply was lost"

// WriteRedisRetry prints the go-redis lesson: each run (the library's
// default retries, then none) told step by step, then how to avoid the
// trap. It reports whether a run poisoned the caller's own key.
func WriteRedisRetry(w io.Writer, runs []scenarios.RedisRetry, v View) (poisoned bool, err error) {
	limit := DemoWidth
	if v.Width > 0 {
		limit = min(v.Width, DemoWidth)
	}
	var b strings.Builder
	b.WriteString(v.paint(toneStrong, RedisRetryTitle) + "\n")
	b.WriteString(wrapWords("", "", "A go-redis client claims a key with SET NX, through a Toxiproxy link; the link holds "+
		"back the reply until Redis has applied the SET, then drops it and closes the connection. The same "+
		"call, on the same fault, with two settings of MaxRetries:", limit))
	for _, r := range runs {
		b.WriteString("\n" + v.paint(toneStrong, retriesLabel(r.MaxRetries)) + "\n")
		lines, p := narrate.RedisRetry(r)
		poisoned = poisoned || p
		for _, line := range lines {
			num, text, _ := strings.Cut(line, " ")
			text = strings.ReplaceAll(text, "POISONED BY ITSELF", v.paint(toneBroken, "POISONED BY ITSELF"))
			b.WriteString(wrapWords(num+" ", strings.Repeat(" ", width(num)+1), text, limit))
		}
	}
	b.WriteString("\n" + v.paint(toneStrong, "How to avoid it:") + "\n")
	b.WriteString(wrapWords("  ", "  ", "Set MaxRetries: -1 on the client of an idempotency store (idemchaos's stores do), and "+
		"treat a network error as \"outcome unknown\": read the key and compare the token with your own before "+
		"answering. A client library that retries on its own turns a lost reply into a wrong answer for any "+
		"command that is not idempotent: SET NX, INCR, LPUSH.", limit))
	_, err = io.WriteString(w, b.String())
	return poisoned, err
}

func retriesLabel(n int) string {
	switch {
	case n == 0:
		return "MaxRetries unset (the library's default: 3 retries)"
	case n < 0:
		return fmt.Sprintf("MaxRetries %d (no retries)", n)
	}
	return fmt.Sprintf("MaxRetries %d", n)
}
