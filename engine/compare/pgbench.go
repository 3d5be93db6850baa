package compare

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/targets/strategy/design"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemchaos/idemchaos/sim/load"
	"github.com/idemchaos/idemchaos/targets/ledger"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// seedKeys is how many completed keys the replay script retries.
const seedKeys = 1000

// pgbench replays a strategy's SQL (one pipeline per round trip, prepared
// like pgx) on a ledger of its own: pg-tx's (strategy.PgTxFresh and
// PgTxReplay) and none's (strategy.NoneCharge).
type pgbench struct {
	cfg        Config
	dsn        string
	pool       *pgxpool.Pool
	pgTx, none pgbenchScripts
}

// pgbenchScripts are the script files of one strategy's SQL: a fresh key,
// and a retry of a completed key ("" for none, which ignores the key).
type pgbenchScripts struct {
	name, fresh, retry string
}

func newPgbench(ctx context.Context, c Config, dsn string) (*pgbench, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("pgbench database: %w", err)
	}
	file := func(name string) string { return filepath.Join(c.Dir, name) }
	p := &pgbench{cfg: c, dsn: dsn, pool: pool,
		pgTx: pgbenchScripts{name: design.Reference, fresh: file("pg-tx-fresh.sql"), retry: file("pg-tx-replay.sql")},
		none: pgbenchScripts{name: design.Baseline, fresh: file("none.sql")}}
	err = firstErr(ledger.Migrate(ctx, pool),
		os.WriteFile(p.pgTx.fresh, []byte(Script(strategy.PgTxFresh(), freshValues)), 0o644),
		os.WriteFile(p.pgTx.retry, []byte(Script(strategy.PgTxReplay(), replayValues)), 0o644),
		os.WriteFile(p.none.fresh, []byte(Script(strategy.NoneCharge(), freshValues)), 0o644))
	if err != nil {
		pool.Close()
		return nil, err
	}
	return p, nil
}

func (p *pgbench) close() { p.pool.Close() }

// The pgbench expressions of the parameters' values: a fresh key per
// transaction, or one of the seeded completed keys.
var (
	common = map[string]string{"fingerprint": "'fp'", "account": "('acct-' || :acct)", "amount": ":amount",
		"currency": "'" + load.Currency + "'", "attempt": "''", "replica": "0",
		"body_rest": `('","account":"acct-' || :acct || '","amount":' || :amount || ',"currency":"` + load.Currency + `","balance":')`}
	freshValues  = with(common, "key", "('pgb-' || :client_id || '-' || :r)")
	replayValues = with(common, "key", "('seed-' || :k)")
)

func with(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for a, b := range m {
		out[a] = b
	}
	return out
}

var placeholder = regexp.MustCompile(`\$([0-9]+)`)

// Script writes a strategy's statements as a pgbench script: the
// parameters as pgbench expressions, the statements of one round trip in
// one pipeline.
func Script(s strategy.Script, values map[string]string) string {
	var b strings.Builder
	b.WriteString("\\set acct random(1, 16)\n\\set amount random(100, 9999)\n")
	b.WriteString("\\set r random(1, 1000000000000)\n\\set k random(1, " + strconv.Itoa(seedKeys) + ")\n")
	for _, trip := range s {
		if len(trip) > 1 {
			b.WriteString("\\startpipeline\n")
		}
		for _, st := range trip {
			sql := placeholder.ReplaceAllStringFunc(st.SQL, func(m string) string {
				n, _ := strconv.Atoi(m[1:])
				return values[st.Params[n-1]]
			})
			b.WriteString(strings.Join(strings.Fields(sql), " ") + ";\n")
		}
		if len(trip) > 1 {
			b.WriteString("\\endpipeline\n")
		}
	}
	return b.String()
}

// prepare empties the ledger and seeds the accounts and completed keys.
func (p *pgbench) prepare(ctx context.Context) error {
	if err := ledger.Reset(ctx, p.pool); err != nil {
		return err
	}
	_, err := p.pool.Exec(ctx, `INSERT INTO accounts (id, currency, opening, balance)
		SELECT 'acct-' || i, $1::text, $2::bigint, $2::bigint FROM generate_series(1, 16) i`, load.Currency, int64(1)<<50)
	if err == nil {
		_, err = p.pool.Exec(ctx, `INSERT INTO idempotency_keys (key, fingerprint, response_status, response_body)
			SELECT 'seed-' || i, 'fp', 201, '{"id":"ch_0"}' FROM generate_series(1, $1::int) i`, seedKeys)
	}
	if err != nil {
		return fmt.Errorf("pgbench ledger: %w", err)
	}
	return nil
}

// take runs pgbench on script for the configured duration (with
// retries in the duplicate ratio, when it has a retry script), prepared
// statements, one client per sender.
func (p *pgbench) take(ctx context.Context, round int, s pgbenchScripts) (sample, error) {
	if err := p.prepare(ctx); err != nil {
		return sample{}, err
	}
	dup := int(math.Round(p.cfg.DupRatio * 100))
	if s.retry == "" {
		dup = 0
	}
	args := []string{"-n", "-M", "prepared", "-c", strconv.Itoa(p.cfg.Concurrency), "-j", strconv.Itoa(threads(p.cfg.Concurrency)),
		"-T", strconv.Itoa(int(math.Ceil(p.cfg.Duration.Seconds())))}
	if dup < 100 {
		args = append(args, "-f", fmt.Sprintf("%s@%d", s.fresh, 100-dup))
	}
	if dup > 0 {
		args = append(args, "-f", fmt.Sprintf("%s@%d", s.retry, dup))
	}
	w := p.cfg.cpu.begin()
	run, err := runTool(ctx, p.cfg, fmt.Sprintf("pgbench-%s-%d.txt", s.name, round+1), nil, p.cfg.Pgbench, append(args, p.dsn)...)
	if err != nil {
		return sample{}, err
	}
	cpu := w.end(run.cpu)
	tps, err := PgbenchTPS(run.out)
	if err != nil {
		return sample{}, err
	}
	n, err := count(pgbenchCount, run.out, "pgbench")
	return sample{value: tps, count: n, cpu: cpu}, err
}

// taker measures one of pgbench's scripts.
func (p *pgbench) taker(s pgbenchScripts) func(context.Context, int) (sample, error) {
	return func(ctx context.Context, round int) (sample, error) { return p.take(ctx, round, s) }
}

var (
	tpsLine      = regexp.MustCompile(`(?m)^tps = ([0-9.]+)`)
	pgbenchCount = regexp.MustCompile(`(?m)^number of transactions actually processed: ([0-9]+)`)
)

// PgbenchTPS reads the transactions per second pgbench reports.
func PgbenchTPS(out []byte) (float64, error) {
	m := tpsLine.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("pgbench printed no tps line:\n%s", tail(out))
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

// toolRun is what a load tool printed and the CPU time it spent.
type toolRun struct {
	out []byte
	cpu time.Duration
}

// runTool runs a load tool, keeping its output in the scratch directory;
// it is bounded by the measurement's duration plus a minute.
func runTool(ctx context.Context, c Config, outName string, env []string, path string, args ...string) (toolRun, error) {
	return runToolInput(ctx, c, outName, nil, env, path, args...)
}

// runToolInput is runTool with stdin read from in (nil: none).
func runToolInput(ctx context.Context, c Config, outName string, in io.Reader, env []string, path string, args ...string) (toolRun, error) {
	ctx, cancel := context.WithTimeout(ctx, c.Duration+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = append(slices.Clone(c.Env), env...)
	cmd.Stdin = in
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	_ = os.WriteFile(filepath.Join(c.Dir, outName), out.Bytes(), 0o644)
	if err != nil {
		return toolRun{}, fmt.Errorf("%s: %v\n%s", filepath.Base(path), err, tail(out.Bytes()))
	}
	return toolRun{out: out.Bytes(), cpu: childCPU(cmd.ProcessState)}, nil
}

// tail is the end of a tool's output, for an error.
func tail(b []byte) string {
	const n = 800
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// threads is a load tool's threads for c connections: one per CPU at most.
func threads(c int) int { return max(1, min(c, runtime.NumCPU())) }
