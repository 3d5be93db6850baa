package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/narrate"
)

// The titles of the hidden-retry lessons.
const (
	HTTPResendTitle = "demo: " + scenarios.LessonGoHTTPResend + ", Go's net/http re-sends a keyed POST on a reused connection"
	RedisRetryTitle = "demo: " + scenarios.LessonGoRedisRetry + ", go-redis v9 re-sends a SET NX whose reply was lost"
	ClientTitle     = "demo: " + scenarios.LessonClientNewKey + ", the same dropped answer, two payment clients"
)

// lesson is a hidden-retry lesson as printed: its runs told step by step
// under their labels, the word that is loud in colour, how to avoid it.
type lesson struct {
	title, intro, loud, avoid string
	labels                    []string
	steps                     [][]string
}

// The lessons' fixed words.
var (
	httpLesson = lesson{title: HTTPResendTitle, loud: "DOUBLE CHARGE",
		intro: "A plain net/http client (Go's Transport, keep-alive on) posts one charge to the built-in server; " +
			"the first time the server sees it, it does the work, then closes the connection before a byte of the " +
			"answer. The same call, on the same fault, against two strategies:",
		avoid: "Net/http treats a POST with an Idempotency-Key (or X-Idempotency-Key) header as safe to re-send " +
			"(Request.isReplayable in net/http): the server must make it so, with a key layer that replays. A " +
			"harness must see attempts as the server logged them: idemchaos's client clears GetBody, so its " +
			"transport can never re-send, and merges the server's log with its own, so a re-send by any other " +
			"client is a marked hidden attempt, never a missed one."}
	redisLesson = lesson{title: RedisRetryTitle, loud: "POISONED BY ITSELF",
		intro: "A go-redis client claims a key with SET NX, through a Toxiproxy link; the link holds back the " +
			"reply until Redis has applied the SET, then drops it and closes the connection. The same call, on " +
			"the same fault, with two settings of MaxRetries:",
		avoid: "Set MaxRetries: -1 on the client of an idempotency store (idemchaos's stores do), and treat a " +
			"network error as \"outcome unknown\": read the key and compare the token with your own before " +
			"answering. A client library that retries on its own turns a lost reply into a wrong answer for any " +
			"command that is not idempotent: SET NX, INCR, LPUSH."}
)

// clientLesson is the client lesson's fixed words.
var clientLesson = lesson{title: ClientTitle, loud: "DOUBLE CHARGE",
	intro: "idemchaos serves the payment API (pg-tx) and drops the answer to a charge's first try after the charge " +
		"committed: the money moved, the client sees a network error. Two clients, written alike with net/http, " +
		"three tries a quarter of a second apart, differ in one line: where the Idempotency-Key is made.",
	avoid: "Make the key once per operation, when the user asks to pay, keep it with the operation (persist it if " +
		"the process may restart) and send it on every try: the server then knows a retry from a new payment. " +
		"`idemchaos client -- YOUR-CLIENT` checks that, and the rest of the client's half, under every fault " +
		"(docs/clients.md)."}

// WriteClientLesson prints the client lesson: each client (the key kept,
// then a key per try) told step by step, then how to avoid the trap. It
// reports whether a client was charged twice.
func WriteClientLesson(w io.Writer, runs []scenarios.ClientLessonRun, v View) (doubled bool, err error) {
	l := clientLesson
	for _, r := range runs {
		lines, d := narrate.ClientLesson(r)
		doubled = doubled || d
		label := "a client that makes the key once per operation"
		if r.NewKeyPerTry {
			label = "a client that makes a new key for every try"
		}
		l = l.with(label, lines)
	}
	return doubled, l.write(w, v)
}

// WriteHTTPResend prints the net/http lesson: each run (no key layer, then
// pg-tx) told step by step, then how the harness keeps it out of its own
// traffic. It reports whether a run charged twice.
func WriteHTTPResend(w io.Writer, runs []scenarios.HTTPResend, v View) (doubled bool, err error) {
	l := httpLesson
	for _, r := range runs {
		lines, d := narrate.HTTPResend(r)
		doubled = doubled || d
		l = l.with("strategy "+r.Strategy, lines)
	}
	return doubled, l.write(w, v)
}

// WriteRedisRetry prints the go-redis lesson: each run (the library's
// default retries, then none) told step by step, then how to avoid the
// trap. It reports whether a run poisoned the caller's own key.
func WriteRedisRetry(w io.Writer, runs []scenarios.RedisRetry, v View) (poisoned bool, err error) {
	l := redisLesson
	for _, r := range runs {
		lines, p := narrate.RedisRetry(r)
		poisoned = poisoned || p
		l = l.with(retriesLabel(r.MaxRetries), lines)
	}
	return poisoned, l.write(w, v)
}

// with adds a run's steps under its label.
func (l lesson) with(label string, lines []string) lesson {
	l.labels = append(slices.Clone(l.labels), label)
	l.steps = append(slices.Clone(l.steps), lines)
	return l
}

// write prints the lesson within v's width (at most DemoWidth).
func (l lesson) write(w io.Writer, v View) error {
	limit := DemoWidth
	if v.Width > 0 {
		limit = min(v.Width, DemoWidth)
	}
	var b strings.Builder
	b.WriteString(v.paint(toneStrong, l.title) + "\n" + wrapWords("", "", l.intro, limit))
	for i, lines := range l.steps {
		b.WriteString("\n" + v.paint(toneStrong, l.labels[i]) + "\n")
		for _, line := range lines {
			num, text, _ := strings.Cut(line, " ")
			text = strings.ReplaceAll(text, l.loud, v.paint(toneBroken, l.loud))
			b.WriteString(wrapWords(num+" ", strings.Repeat(" ", width(num)+1), text, limit))
		}
	}
	b.WriteString("\n" + v.paint(toneStrong, "How to avoid it:") + "\n" + wrapWords("  ", "  ", l.avoid, limit))
	_, err := io.WriteString(w, b.String())
	return err
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
