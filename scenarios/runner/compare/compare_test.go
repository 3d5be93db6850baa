package compare

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/targets/strategy"
)

// TestScriptIsTheStrategysSQL: the pgbench script holds each statement of
// pg-tx's transaction, its parameters as pgbench expressions, one pipeline
// per round trip of more than one statement.
func TestScriptIsTheStrategysSQL(t *testing.T) {
	s := Script(strategy.PgTxFresh(), freshValues)
	if strings.Contains(s, "$") {
		t.Errorf("a placeholder is left:\n%s", s)
	}
	if got := strings.Count(s, "\\startpipeline"); got != 2 {
		t.Errorf("%d pipelines, want 2 (BEGIN with the claim, the stored response with COMMIT):\n%s", got, s)
	}
	for _, want := range []string{"pg_try_advisory_xact_lock(hashtextextended(('pgb-' || :client_id || '-' || :r)::text, 0))",
		"UPDATE accounts SET balance = balance - :amount::bigint", "BEGIN;", "COMMIT;", "AND id = ('acct-' || :acct)::text"} {
		if !strings.Contains(s, want) {
			t.Errorf("the script lacks %q:\n%s", want, s)
		}
	}
	if r := Script(strategy.PgTxReplay(), replayValues); !strings.Contains(r, "('seed-' || :k)") {
		t.Errorf("the replay script does not retry a seeded key:\n%s", r)
	}
}

func TestToolOutputs(t *testing.T) {
	tps, err := PgbenchTPS([]byte("latency average = 7.1 ms\ninitial connection time = 12.3 ms\ntps = 2126.412 (without initial connection time)\n"))
	if err != nil || tps != 2126.412 {
		t.Errorf("pgbench: %v %v", tps, err)
	}
	rps, err := WrkRPS([]byte("  Non-2xx or 3xx responses: 12\nRequests/sec:   1315.27\nTransfer/sec:    390.11KB\n"))
	if err != nil || rps != 1315.27 {
		t.Errorf("wrk: %v %v", rps, err)
	}
	if _, err := WrkRPS([]byte("unable to connect to 127.0.0.1:1 Connection refused\n")); err == nil {
		t.Error("wrk: no figure, no error")
	}
}

// TestRatiosPairRounds: a ratio divides the two measurements of the same
// round, and its median and range are over the rounds.
func TestRatiosPairRounds(t *testing.T) {
	ms := []Series{newSeries(MeasureWrkPgTx, "req/s", []float64{900, 1000, 400}),
		newSeries(MeasureWrkNone, "req/s", []float64{1000, 1000, 1000})}
	rs := ratios(ms)
	r := rs[0]
	if r.Name != "pg-tx / none (wrk, closed)" || r.Median != 0.9 || r.Min != 0.4 || r.Max != 1 {
		t.Fatalf("%+v", r)
	}
	if r.Meets == nil || !*r.Meets {
		t.Errorf("median 0.9 against goal 0.85: %+v", r)
	}
	if len(rs[1].Values) != 0 || rs[1].Meets != nil {
		t.Errorf("a ratio without its measurements: %+v", rs[1])
	}
}
