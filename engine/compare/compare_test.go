package compare

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/results"
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
	if got := strings.Count(s, "\\startpipeline"); got != 1 || !strings.HasSuffix(s, "\\endpipeline\nCOMMIT;\n") {
		t.Errorf("%d pipelines, want 1 (BEGIN with the claim, the charge and the stored response), then COMMIT alone:\n%s", got, s)
	}
	for _, want := range []string{"pg_try_advisory_xact_lock(hashtextextended(('pgb-' || :client_id || '-' || :r)::text, 0))",
		"UPDATE accounts SET balance = balance - :amount::bigint", "BEGIN;", "COMMIT;", "AND id = ('acct-' || :acct)::text",
		"INSERT INTO idempotency_keys", `',"currency":"EUR","balance":')::text`} {
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
	n, err := count(wrkCount, []byte("    Latency     5.44ms    3.71ms  77.35ms   84.39%\n  61296 requests in 20.08s, 13.64MB read\n"), "wrk")
	if err != nil || n != 61296 {
		t.Errorf("wrk count: %v %v", n, err)
	}
	n, err = count(pgbenchCount, []byte("number of clients: 16\nnumber of transactions actually processed: 72236\n"), "pgbench")
	if err != nil || n != 72236 {
		t.Errorf("pgbench count: %v %v", n, err)
	}
	if _, err := count(wrkCount, []byte("Requests/sec: 1\n"), "wrk"); err == nil {
		t.Error("wrk: no count, no error")
	}
}

// TestMeasurementCPU: a measurement's CPU time per request is each part's
// time over the requests of its round, in microseconds; a part missing
// from a round (stores given by URL, no load tool) has no figure.
func TestMeasurementCPU(t *testing.T) {
	ms := time.Millisecond
	m := newMeasurement("wrk, pg-tx", "req/s", []sample{
		{value: 4000, count: 1000, cpu: reading{PartPostgres: 300 * ms, PartIdemchaos: 150 * ms, PartTool: 30 * ms, PartTotal: 480 * ms,
			machineBusy: 1500 * ms, machineAll: 2000 * ms}},
		{value: 5000, count: 2000, cpu: reading{PartPostgres: 500 * ms, PartIdemchaos: 320 * ms, PartTotal: 820 * ms,
			machineBusy: 1900 * ms, machineAll: 2000 * ms}},
	})
	got := map[string][]float64{}
	for _, c := range m.CPU {
		got[c.Name] = c.Values
	}
	want := map[string][]float64{PartPostgres: {300, 250}, PartIdemchaos: {150, 160}, PartTotal: {480, 410}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cpu = %v, want %v", got, want)
	}
	if m.Median != 4500 {
		t.Errorf("median %v", m.Median)
	}
	if m.Busy == nil || !reflect.DeepEqual(m.Busy.Values, []float64{0.75, 0.95}) {
		t.Errorf("machine busy = %+v, want 0.75 and 0.95", m.Busy)
	}
	if m := newMeasurement("x", "tps", []sample{{value: 1, count: 0, cpu: reading{PartTotal: ms}}}); m.CPU != nil {
		t.Errorf("no requests, yet CPU per request: %v", m.CPU)
	}
}

// TestRatiosPairRounds: a ratio divides the two measurements of the same
// round, and its median and range are over the rounds; a ratio of a
// measurement that was not taken is left out.
func TestRatiosPairRounds(t *testing.T) {
	ms := []results.Series{newSeries(MeasureWrkPgTx, "req/s", []float64{900, 1000, 400}),
		newSeries(MeasureWrkNone, "req/s", []float64{1000, 1000, 1000})}
	rs := ratios(ms)
	r := rs[0]
	if r.Name != "pg-tx / none (wrk, closed)" || r.Median != 0.9 || r.Min != 0.4 || r.Max != 1 {
		t.Fatalf("%+v", r)
	}
	if r.Meets == nil || !*r.Meets {
		t.Errorf("median 0.9 against goal 0.85: %+v", r)
	}
	if len(rs) != 1 {
		t.Errorf("ratios of measurements left out are in: %+v", rs[1:])
	}
}
