package reports_test

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// lat is one kind's percentiles, in ms.
func lat(st, kind string, n int64, p50, p90, p99, p999, mx float64) results.Latency {
	return results.Latency{Strategy: st, Kind: kind, Count: n, P50: p50, P90: p90, P99: p99, P999: p999, Max: mx}
}

// benchRes is one strategy at 200/s for 10 s, everything answered.
func benchRes(st, from string, dups int, ls ...results.Latency) results.BenchResult {
	return results.BenchResult{Strategy: st, ReplayFrom: from, Scheduled: 2000, Sent: 2000, Duplicates: dups, Answered: 2000,
		OfferedRPS: 200, AchievedRPS: 199.6, ElapsedMS: 10021, MaxQueuedMS: 0.042,
		Statuses: map[string]int{"201": 2000 - dups, "200": dups}, Errors: map[string]int{},
		Latency: ls, Anomalies: byName(anoms())}
}

// benchFixture is a bench of four strategies covering every case: a flawed
// one (no replays, double charges), a correct one with 409s, one with
// errors and a slow tail, and one that never saw a duplicate.
func benchFixture() results.Bench {
	none := benchRes("none", "-", 203,
		lat("none", "all", 2000, 2.53, 3.67, 54.8, 88.1, 91.2),
		lat("none", "first", 2000, 2.53, 3.67, 54.8, 88.1, 91.2))
	none.Anomalies, none.Overcharged = byName(anoms("double_charge", 203)), 203*1250
	none.Statuses = map[string]int{"201": 2000}
	pg := benchRes("pg-tx", "postgres", 210,
		lat("pg-tx", "all", 2000, 2.93, 7.19, 92.8, 140, 151),
		lat("pg-tx", "first", 1790, 3.05, 7.6, 95.1, 140, 151),
		lat("pg-tx", "replay", 196, 1.71, 2.4, 6.02, 9.1, 9.1),
		lat("pg-tx", "conflict", 14, 12.2, 40.3, 61, 61, 61))
	pg.Statuses = map[string]int{"201": 1790, "200": 196, "409": 14}
	guard := benchRes("redis-pg-guard", "redis, else postgres", 190,
		lat("redis-pg-guard", "all", 1996, 3.12, 15.9, 171, 1240, 1250),
		lat("redis-pg-guard", "first", 1806, 3.3, 16.4, 180, 1240, 1250),
		lat("redis-pg-guard", "replay", 190, 1.6, 2.25, 4.8, 5.2, 5.2))
	guard.Errors, guard.Answered, guard.AchievedRPS = map[string]int{"timeout": 3, "5xx": 1}, 1996, 198.2
	guard.Statuses = map[string]int{"201": 1805, "200": 190, "500": 1}
	guard.Hidden = 2
	mem := benchRes("memory", "memory", 0,
		lat("memory", "all", 2000, 2.67, 4.66, 13.6, 20.5, 22),
		lat("memory", "first", 2000, 2.67, 4.66, 13.6, 20.5, 22))
	return results.Bench{BenchHeader: results.BenchHeader{Kind: results.BenchKind, SchemaVersion: results.BenchSchemaVersion,
		Tool: "idemchaos", Command: "bench", Model: "open", Rate: 200, Inflight: 512, DurationMS: 10000, DupRatio: 0.1,
		CountLimit: 1000000, TimeoutMS: 2000, Accounts: 1000, Seed: 1, Profile: "ietf",
		Started: time.Date(2025, 11, 29, 19, 0, 0, 0, time.UTC), TookMS: 62345, LatencyFrom: "intended send time",
		Machine: results.Machine{OS: "linux", Arch: "amd64", CPUs: 2, GOMAXPROCS: 2, GoVersion: "go1.26.0"}},
		Results: []results.BenchResult{none, mem, pg, guard}}
}

// renderBench runs one bench renderer into a byte slice.
func renderBench(t *testing.T, f func(io.Writer, results.Bench) error, doc results.Bench) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := f(&b, doc); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// benchRenderers take a bench document, by golden file name.
var benchRenderers = map[string]func(io.Writer, results.Bench) error{
	"bench.md.golden":    reports.WriteBenchMarkdown,
	"bench.html.golden":  reports.WriteBenchHTML,
	"bench.table.golden": reports.WriteBenchTable,
}

// byName keys anomaly counts by name, as a bench document does.
func byName(m map[check.Anomaly]int) map[string]int {
	out := map[string]int{}
	for a, n := range m {
		out[string(a)] = n
	}
	return out
}
