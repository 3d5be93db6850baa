package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// flagCases are the flag values FuzzFlagValues parses, by number: each
// gives value (and n) to one parser as the command line would.
var flagCases = []func(value string, n int64) error{
	// bench: every flag that carries a value
	benchFlag("strategies"), benchFlag("rate"), benchFlag("concurrency"), benchFlag("duration"),
	benchFlag("dup-ratio"), benchFlag("count"), benchFlag("inflight"), benchFlag("accounts"),
	benchFlag("timeout"), benchFlag("seed"), benchFlag("serve"), benchFlag("profile"),
	// run and matrix
	func(v string, _ int64) error { return fuzzSplitList(v) },
	func(v string, _ int64) error { return requireName("scenario", v, scenarios.Names()) },
	func(_ string, n int64) error { return fuzzSeedList(n) },
	fuzzCommon,
	// a user's own service
	targetFlag("target-url"), targetFlag("success-status"), targetFlag("accounts"), targetFlag("claim-timeout"),
	targetFlag("key-ttl"), targetFlag("body"), targetFlag("path"), targetFlag("charge-id-field"),
	// report and check: a target around flags
	func(v string, _ int64) error { return fuzzWithTarget(strings.Fields(v)) },
	// the replay comparison of a user's own service
	targetFlag("replay-compare"), replayIgnoreFlag,
	// its top-up request
	targetFlag("topup-path"), topUpFlag("topup-body"), topUpFlag("topup-amount"),
}

// topUpFlag parses a top-up flag beside a valid --topup-path.
func topUpFlag(name string) func(string, int64) error {
	return func(v string, _ int64) error {
		return parseTarget("--topup-path", "/v1/accounts/{{.Account}}/top-ups", "--"+name, v)
	}
}

// replayIgnoreFlag parses --replay-ignore under the JSON comparison.
func replayIgnoreFlag(v string, _ int64) error {
	return parseTarget("--replay-compare", "json", "--replay-ignore", v)
}

// parseTarget parses the flags of a user's own service, args after a
// valid target, as run would.
func parseTarget(args ...string) error {
	var tf targetFlags
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	tf.register(fs)
	full := append([]string{"--target-url", "http://127.0.0.1:8080", "--ledger-url", "postgres://u@127.0.0.1/l", "--ledger-query", "q"}, args...)
	if err := parse(fs, full); err != nil {
		return err
	}
	_, _, err := tf.external()
	return err
}

// FuzzFlagValues: no flag value makes a parser panic or hang, a refused
// value is a usage error (exit 2) printed as one line, and lists parse to
// known names without repeats.
func FuzzFlagValues(f *testing.F) {
	for i, v := range []string{"pg-tx,none", "200", "8", "10s", "0.5", "1000", "64", "10", "2s", "42", "127.0.0.1:8080", "stripe",
		"pg-tx, pg-tx ,none", "missing-key", "", "ietf",
		"http://127.0.0.1:8080/api", "201,202", "a,b, ,c", "5s", "24h", "{{.Key}}", "/v1/charges", "data.id",
		"DIR --format html -o out.html", "json", "created,meta.request_id"} {
		f.Add(uint8(i), v, int64(i))
	}
	f.Add(uint8(3), "-1ns", int64(0))
	f.Add(uint8(4), "NaN", int64(0))
	f.Add(uint8(10), "[::1]:0", int64(0))
	f.Add(uint8(14), "", int64(-1))
	f.Fuzz(func(t *testing.T, which uint8, value string, n int64) {
		defer fuzzWatchdog(fuzzLimit)()
		err := flagCases[int(which)%len(flagCases)](value, n)
		if err == nil || errors.Is(err, flag.ErrHelp) {
			return
		}
		var out bytes.Buffer
		code := report(context.Background(), err, &out)
		if code != exitUsage || strings.Count(out.String(), "\n") != 1 || !strings.HasPrefix(out.String(), "idemchaos: ") {
			t.Fatalf("case %d, value %q, n %d: exit %d, printed %q; want exit 2 and one line", which, value, n, code, out.String())
		}
	})
}

// benchFlag parses `bench --NAME value`.
func benchFlag(name string) func(string, int64) error {
	return func(v string, _ int64) error {
		_, err := parseBench([]string{"--" + name, v})
		return err
	}
}

// targetFlag parses `run --target-url ... --NAME value` into a target.
func targetFlag(name string) func(string, int64) error {
	return func(v string, _ int64) error { return parseTarget("--"+name, v) }
}

// fuzzSplitList parses a --strategies list: what it accepts are known
// names without repeats, and parses again to itself.
func fuzzSplitList(v string) error {
	known := design.Names()
	got, err := splitList("strategies", v, known)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, s := range got {
		if !slices.Contains(known, s) || seen[s] {
			panic("splitList(" + v + ") = " + strings.Join(got, ","))
		}
		seen[s] = true
	}
	if again, err := splitList("strategies", strings.Join(got, ","), known); err != nil || !slices.Equal(again, got) {
		panic("splitList does not parse its own output: " + v)
	}
	return nil
}

// fuzzSeedList asks for n seeds from n.
func fuzzSeedList(n int64) error {
	seeds, err := seedList(uint64(n), int(n%20_000))
	if err == nil && (len(seeds) != int(n%20_000) || seeds[0] != uint64(n)) {
		panic("seedList")
	}
	return err
}

// fuzzCommon checks --profile v and --replicas n.
func fuzzCommon(v string, n int64) error {
	c := common{profile: v, replicas: int(n)}
	_, err := c.check()
	return err
}

// fuzzWithTarget parses `report ARGS` as far as its flags and target.
func fuzzWithTarget(args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.String("format", "table", "")
	fs.String("o", "", "")
	_, err := parseWithTarget(fs, args, "report DIR|FILE")
	return err
}

// fuzzLimit bounds one input; a slower one is a hang.
const fuzzLimit = 10 * time.Second

// fuzzWatchdog crashes the process when an input runs longer than limit, so
// that the fuzzer records a hang as a failing input; call the result to
// disarm it.
func fuzzWatchdog(limit time.Duration) func() bool {
	return time.AfterFunc(limit, func() { panic(fmt.Sprintf("one input ran for more than %v", limit)) }).Stop
}
