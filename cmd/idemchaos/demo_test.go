package main

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// story is a demo's output without its timings section.
func story(out string) string {
	if i := strings.Index(out, reports.TimingsHeader); i >= 0 {
		return out[:i]
	}
	return out
}

func TestDemoForcedRaceTellsTheDoubleChargeTheSameWayEveryTime(t *testing.T) {
	args := []string{"demo", "forced-race", "--strategy", "redis-getset", "--seed", "1"}
	first := cli(t, args...)
	second := cli(t, args...)
	for _, o := range []outcome{first, second} {
		if o.code != exitViolated {
			t.Fatalf("exit %d; want %d\n%s\n%s", o.code, exitViolated, o.stdout, o.stderr)
		}
		for _, want := range []string{"DOUBLE CHARGE", "sequenceDiagram", "```mermaid", "the gate holds request A",
			"request B's answer opens the gate", "Double charge: one key, several ledger charges", reports.TimingsHeader} {
			if !strings.Contains(flat(o.stdout), want) {
				t.Errorf("no %q in:\n%s", want, o.stdout)
			}
		}
	}
	if a, b := story(first.stdout), story(second.stdout); a != b {
		t.Errorf("two runs told two stories:\n%s\n----\n%s", a, b)
	}
}

func TestDemoCorrectStrategyHolds(t *testing.T) {
	o := cli(t, "demo", "forced-race", "--strategy", "pg-tx")
	if o.code != exitPass {
		t.Fatalf("exit %d; want 0\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if strings.Contains(flat(o.stdout), "DOUBLE CHARGE") || !strings.Contains(flat(o.stdout), "one charge, the key held (client B got 409, then the replay)") {
		t.Errorf("pg-tx story:\n%s", o.stdout)
	}
}

func TestDemoMermaidOnly(t *testing.T) {
	o := cli(t, "demo", "forced-race", "--strategy", "redis-setnx", "--mermaid-only")
	if o.code != exitPass || !strings.HasPrefix(o.stdout, "sequenceDiagram\n") || strings.Contains(o.stdout, "```") ||
		strings.Contains(o.stdout, "1. client A") {
		t.Errorf("exit %d:\n%s\n%s", o.code, o.stdout, o.stderr)
	}
}

func TestDemoUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"demo", "no-such-scenario"},
		{"demo", "forced-race", "--strategy", "no-such-strategy"},
		{"demo"},
		{"demo", "--strategy", "pg-tx"},
		{"demo", "forced-race", "extra"},
	} {
		o := cli(t, args...)
		if o.code != exitUsage || strings.Count(strings.TrimSpace(o.stderr), "\n") != 0 || !strings.HasPrefix(o.stderr, "idemchaos: ") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line", args, o.code, o.stderr)
		}
	}
}

func TestDemoListNamesEveryAnomaly(t *testing.T) {
	names := check.Names()
	o := cli(t, "demo", "--list")
	if o.code != exitPass {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	for _, n := range names {
		if !strings.Contains(o.stdout, n) {
			t.Errorf("demo --list does not mention %s", n)
		}
	}
	for _, n := range names {
		if !strings.Contains(o.stdout, "  "+n+": ") {
			t.Errorf("demo --list has no lesson for %s:\n%s", n, o.stdout)
		}
	}
	lessons := scenarios.HiddenLessons()
	if c := strings.Count(o.stdout, "    idemchaos demo "); c != len(names)+len(lessons) || strings.Contains(o.stdout, "no demo") {
		t.Errorf("demo --list names %d demos for %d anomalies and %d lessons:\n%s", c, len(names), len(lessons), o.stdout)
	}
	for _, l := range lessons {
		if !strings.Contains(o.stdout, "    idemchaos demo "+l.Name+"\n") {
			t.Errorf("demo --list does not list the lesson %s", l.Name)
		}
	}
	assertFits(t, "demo --list", o.stdout, reports.DemoWidth)
}

// TestDemoGoRedisRetryTellsTheSameStoryEveryTime: the lesson runs the
// same SET NX under the same fault twice (default retries, then none) and
// tells the same steps on every run; exit 1, the caller's key poisoned.
func TestDemoGoRedisRetryTellsTheSameStoryEveryTime(t *testing.T) {
	assertSameStory(t, []string{"demo", "go-redis-retry"}, "MaxRetries unset (the library's default: 3 retries)",
		"2 SET commands on the wire for one call", "the caller gets false, nil", "POISONED BY ITSELF",
		"MaxRetries -1 (no retries)", "1 SET command on the wire", "the caller gets an error")
	if o := cli(t, "demo", "go-redis-retry", "--strategy", "pg-tx"); o.code != exitUsage {
		t.Errorf("a lesson with --strategy: exit %d; want %d", o.code, exitUsage)
	}
}

// TestDemoGoHTTPResendTellsTheSameStoryEveryTime: the lesson's keyed POST
// is written twice by the transport for one call, against none and pg-tx,
// the same way on every run; exit 1, none charged it twice.
func TestDemoGoHTTPResendTellsTheSameStoryEveryTime(t *testing.T) {
	assertSameStory(t, []string{"demo", "go-http-resend"}, "strategy none", "the application calls Do once",
		"it writes the request again on a new connection, twice in all", "logged the attempt twice, the client sent it once",
		"DOUBLE CHARGE: 2 ledger charges for one call", "strategy pg-tx", "a replay of the first attempt's charge",
		"one ledger charge")
}

// TestDemoClientNewKeyTellsTheSameStoryEveryTime: the client lesson's
// dropped answer is met by a client that keeps its key (one charge, the
// replay) and one that makes a key per try (two), the same way on every
// run; exit 1, the second charged twice.
func TestDemoClientNewKeyTellsTheSameStoryEveryTime(t *testing.T) {
	assertSameStory(t, []string{"demo", "client-new-key"}, "a client that makes the key once per operation",
		"try 2: the client sends it again with key A, the same key", "replays its stored answer, charge 1: no money moves",
		"one ledger charge on acct-op-01", "a client that makes a new key for every try",
		"try 2: the client sends it again with key B, a new one", "DOUBLE CHARGE: 2 ledger charges on acct-op-01 for one payment",
		"(retry_new_key)")
}

// TestDemoBalanceTellsTheDriftTheSameWayEveryTime: pg-split-debit's
// debit commits before the cut, and the story says so, with the money the
// account lost beside its one charge row, the same on every run of a seed.
func TestDemoBalanceTellsTheDriftTheSameWayEveryTime(t *testing.T) {
	assertSameStory(t, []string{"demo", "db-fault-mid-request", "--strategy", "pg-split-debit", "--seed", "3", "--no-timings"},
		"in a first transaction, committed already", "link from replica 0 to Postgres is cut",
		"one charge row, but the key's requests debited", "twice", "BALANCE: ", "left it with no charge row",
		"Balance mismatch")
}

// assertSameStory runs a demo twice: each exits 1 with every wanted
// phrase, within a room's width, and the two tell the same text.
func assertSameStory(t *testing.T, args []string, wants ...string) {
	t.Helper()
	first, second := cli(t, args...), cli(t, args...)
	for _, o := range []outcome{first, second} {
		if o.code != exitViolated {
			t.Fatalf("exit %d; want %d\n%s\n%s", o.code, exitViolated, o.stdout, o.stderr)
		}
		for _, want := range wants {
			if !strings.Contains(flat(o.stdout), want) {
				t.Errorf("no %q in:\n%s", want, o.stdout)
			}
		}
		assertFits(t, strings.Join(args, " "), o.stdout, reports.DemoWidth)
	}
	if first.stdout != second.stdout {
		t.Errorf("two runs told two stories:\n%s\n----\n%s", first.stdout, second.stdout)
	}
}

// TestDemoOfEachClassShowsIt runs every demo --list names and checks that
// its story ends in the anomaly it is listed for.
func TestDemoOfEachClassShowsIt(t *testing.T) {
	t.Parallel()
	told := map[string]string{}
	for _, c := range scenarios.Lessons() {
		if c.Scenario == "forced-race" && c.Strategy == "redis-getset" { // the test above
			continue
		}
		cell := c.Scenario + " " + c.Strategy
		if _, ok := told[cell]; !ok {
			o := cli(t, "demo", c.Scenario, "--strategy", c.Strategy, "--no-timings")
			if o.code != exitViolated {
				t.Errorf("%s: exit %d; want 1\n%s\n%s", cell, o.code, o.stdout, o.stderr)
			}
			told[cell] = o.stdout
		}
		want := strings.ToUpper(strings.ReplaceAll(string(c.Anomaly), "_", " ")) + ":"
		if !strings.Contains(flat(told[cell]), want) {
			t.Errorf("demo %s does not show %s:\n%s", cell, c.Anomaly, told[cell])
		}
		assertForARoom(t, cell, c.Strategy, told[cell])
	}
}

// flat is s with every run of white space one space: a check of words
// that a wrapped line may have broken.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// assertForARoom: a demo fits 100 columns, and each explanation's why is
// about the strategy shown (no other strategy named but those its own
// mechanism names).
func assertForARoom(t *testing.T, cell, strategy, out string) {
	t.Helper()
	for line := range strings.SplitSeq(out, "\n") {
		if n := utf8.RuneCountInString(line); n > reports.DemoWidth {
			t.Errorf("demo %s: a line of %d columns: %s", cell, n, line)
		}
	}
	own, _ := design.Lookup(strategy)
	whys := 0
	for _, part := range strings.Split(flat(out), "Why: ")[1:] {
		why, _, _ := strings.Cut(part, "How to avoid it:")
		whys++
		if !strings.Contains(why, "Here "+strategy+": ") {
			t.Errorf("demo %s: the why is not about %s: %s", cell, strategy, why)
		}
		for _, other := range design.Names() {
			if other != strategy && strings.Contains(why, other+" ") && !strings.Contains(own.Mechanism, other) {
				t.Errorf("demo %s: the why of %s names %s: %s", cell, strategy, other, why)
			}
		}
	}
	if whys == 0 {
		t.Errorf("demo %s explains nothing:\n%s", cell, out)
	}
}

// TestDemoQuietAndInColour: a demo's stores start without a word unless
// --verbose; colour only when asked for (stdout here is not a terminal),
// and its words are the same with and without it.
func TestDemoQuietAndInColour(t *testing.T) {
	args := []string{"demo", "payload-mismatch", "--strategy", "pg-nofingerprint", "--no-timings"}
	plain := cli(t, args...)
	if plain.code != exitViolated || plain.stderr != "" || strings.Contains(plain.stdout, "\033[") {
		t.Fatalf("exit %d; want 1, nothing on stderr, no colour\n%s%s", plain.code, plain.stderr, plain.stdout)
	}
	loud := cli(t, append(args, "--verbose", "--color=always")...)
	if loud.code != exitViolated || !strings.Contains(loud.stderr, "stores: ") || !strings.Contains(loud.stdout, "\033[1;31mMISMATCH\033[0m") {
		t.Fatalf("--verbose --color=always: exit %d\n%s%s", loud.code, loud.stderr, loud.stdout)
	}
	if got := regexp.MustCompile("\033\\[[0-9;]*m").ReplaceAllString(loud.stdout, ""); got != plain.stdout {
		t.Errorf("colour changed the words:\n%s\n--- plain\n%s", got, plain.stdout)
	}
}

// TestDemoReplicatedTellsTheSameStoryEveryTime: the two demos on the
// replicated Postgres tell what the fault did to the told key (the
// standby read absent after the commit; the commit gone after the crash)
// and tell it the same way on two runs of the same seed.
func TestDemoReplicatedTellsTheSameStoryEveryTime(t *testing.T) {
	for _, c := range []struct {
		scenario string
		want     []string
	}{
		{"pg-standby-lag", []string{"DOUBLE CHARGE", "on the Postgres hot standby: absent",
			"the standby has not replayed request A1's commit yet", "to its hot standby turns slow"}},
		{"pg-async-commit-crash", []string{"LOST ACK", "the Postgres primary is killed (SIGKILL) right after request A's commit",
			"Postgres recovers from its WAL without charge", "the WAL buffers died with the server"}},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			t.Parallel()
			args := []string{"demo", c.scenario, "--seed", "1"}
			first, second := cli(t, args...), cli(t, args...)
			for _, o := range []outcome{first, second} {
				if o.code != exitViolated {
					t.Fatalf("exit %d; want %d\n%s\n%s", o.code, exitViolated, o.stdout, o.stderr)
				}
				for _, want := range c.want {
					if !strings.Contains(flat(o.stdout), want) {
						t.Errorf("no %q in:\n%s", want, o.stdout)
					}
				}
			}
			if a, b := story(first.stdout), story(second.stdout); a != b {
				t.Errorf("two runs told two stories:\n%s\n----\n%s", a, b)
			}
		})
	}
}
