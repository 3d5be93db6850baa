package compare

import (
	"bytes"
	"context"
	"fmt"
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

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemchaos/idemchaos/sim/load"
	"github.com/idemchaos/idemchaos/targets/ledger"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// seedKeys is how many completed keys the replay script retries.
const seedKeys = 1000

// pgbench replays pg-tx's SQL (strategy.PgTxFresh and PgTxReplay, one
// pipeline per round trip, prepared like pgx) on a ledger of its own.
type pgbench struct {
	cfg          Config
	dsn          string
	pool         *pgxpool.Pool
	fresh, retry string // script files
}

func newPgbench(ctx context.Context, c Config, dsn string) (*pgbench, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("pgbench database: %w", err)
	}
	p := &pgbench{cfg: c, dsn: dsn, pool: pool,
		fresh: filepath.Join(c.Dir, "pg-tx-fresh.sql"), retry: filepath.Join(c.Dir, "pg-tx-replay.sql")}
	err = firstErr(ledger.Migrate(ctx, pool),
		os.WriteFile(p.fresh, []byte(Script(strategy.PgTxFresh(), freshValues)), 0o644),
		os.WriteFile(p.retry, []byte(Script(strategy.PgTxReplay(), replayValues)), 0o644))
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
		"currency": "'" + load.Currency + "'", "attempt": "''", "replica": "0", "status": "201",
		"body": `convert_to('{"id":"ch_1"}', 'UTF8')`}
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

// take runs pgbench for the configured duration: fresh keys and retries
// in the duplicate ratio, prepared statements, one client per sender.
func (p *pgbench) take(ctx context.Context, round int) (float64, error) {
	if err := p.prepare(ctx); err != nil {
		return 0, err
	}
	dup := int(math.Round(p.cfg.DupRatio * 100))
	args := []string{"-n", "-M", "prepared", "-c", strconv.Itoa(p.cfg.Concurrency), "-j", strconv.Itoa(threads(p.cfg.Concurrency)),
		"-T", strconv.Itoa(int(math.Ceil(p.cfg.Duration.Seconds())))}
	if dup < 100 {
		args = append(args, "-f", fmt.Sprintf("%s@%d", p.fresh, 100-dup))
	}
	if dup > 0 {
		args = append(args, "-f", fmt.Sprintf("%s@%d", p.retry, dup))
	}
	out, err := runTool(ctx, p.cfg, fmt.Sprintf("pgbench-%d.txt", round+1), nil, p.cfg.Pgbench, append(args, p.dsn)...)
	if err != nil {
		return 0, err
	}
	return PgbenchTPS(out)
}

var tpsLine = regexp.MustCompile(`(?m)^tps = ([0-9.]+)`)

// PgbenchTPS reads the transactions per second pgbench reports.
func PgbenchTPS(out []byte) (float64, error) {
	m := tpsLine.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("pgbench printed no tps line:\n%s", tail(out))
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

// runTool runs a load tool, keeping its output in the scratch directory;
// it is bounded by the measurement's duration plus a minute.
func runTool(ctx context.Context, c Config, outName string, env []string, path string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.Duration+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = append(slices.Clone(c.Env), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	_ = os.WriteFile(filepath.Join(c.Dir, outName), out.Bytes(), 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", filepath.Base(path), err, tail(out.Bytes()))
	}
	return out.Bytes(), nil
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
