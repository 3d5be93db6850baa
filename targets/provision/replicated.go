package provision

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// LedgerDatabase is the database a Replicated topology serves its ledger
// from, on the primary and (replicated) on the standby.
const LedgerDatabase = "ledger"

// Settings of the replicated pair. The primary commits synchronously by
// default (a client that turns synchronous_commit off in its transaction
// is the case under test) and its WAL writer wakes only every 10 s (the
// largest wal_writer_delay), so an asynchronous commit stays in
// wal_buffers, shared memory that a SIGKILL of the whole server discards,
// long after it was acknowledged. fsync=off does not save it: it skips
// the flush to disk, not the write to the page cache, which a process
// crash does not lose. No timed checkpoint comes in between either.
var (
	primarySettings = []string{"fsync=off", "full_page_writes=off", "synchronous_commit=on",
		"wal_writer_delay=10s", "wal_writer_flush_after=1GB", "checkpoint_timeout=1h", "max_wal_size=4GB",
		"wal_level=replica", "max_wal_senders=4"}
	standbySettings = []string{"fsync=off", "full_page_writes=off", "hot_standby=on",
		"wal_retrieve_retry_interval=100ms", "max_standby_streaming_delay=-1"}
)

// streamingLimit bounds the wait for the standby to stream from the primary.
const streamingLimit = 30 * time.Second

// ReplicatedConfig selects the binaries and dirs of StartReplicated.
type ReplicatedConfig struct {
	TempDir  string    // base for data dirs; "" = os.TempDir()
	PGBinDir string    // as Config.PGBinDir
	Log      io.Writer // progress lines; nil = discard
	// ClusterCache is as Config.ClusterCache (the primary's cluster).
	ClusterCache string
	// Link puts a proxy in front of the primary's address (host:port) and
	// returns the address to dial instead: the standby streams from the
	// primary through it. Required.
	Link func(upstream string) (string, error)
}

// Replicated is a PostgreSQL primary and one streaming hot standby made
// from it with pg_basebackup -R, local processes on loopback ports. The
// standby's primary_conninfo names the address Link returned, so lag and
// partitions of the replication link are the caller's faults.
type Replicated struct {
	PrimaryURL string // the ledger database on the primary
	StandbyURL string // the same database on the standby (read only)

	mu      sync.Mutex
	primary *pgNode
	standby *pgNode
	closed  bool
	crashes int
}

// pgNode is one server of the pair: its cluster, port and process.
type pgNode struct {
	pg   *localPG
	port int
	proc *proc
}

// StartReplicated starts the primary, creates the ledger database, clones
// the primary through the link into the standby and waits until it
// streams. It sweeps stale data dirs first, as Start does; on failure
// everything started is stopped.
func StartReplicated(ctx context.Context, cfg ReplicatedConfig) (*Replicated, error) {
	if cfg.Link == nil {
		return nil, errors.New("replicated postgres: no link for the replication stream")
	}
	st := newStarter(Config{TempDir: cfg.TempDir, PGBinDir: cfg.PGBinDir, Log: cfg.Log, ClusterCache: cfg.ClusterCache})
	if _, err := Sweep(st.base); err != nil {
		st.log.printf("sweep %s: %v", st.base, err)
	}
	bin, err := findPostgresBin(st.find.pgDirs(ctx))
	if err != nil {
		return nil, &UnavailableError{Service: "postgres", Hint: postgresInstallHint, Err: err}
	}
	r := &Replicated{}
	if err := r.start(ctx, st, bin, cfg.Link); err != nil {
		return nil, errors.Join(err, r.Close())
	}
	return r, nil
}

func (r *Replicated) start(ctx context.Context, st *starter, bin string, link func(string) (string, error)) error {
	var err error
	if r.primary, err = newNode(ctx, st, bin, primarySettings); err != nil {
		return err
	}
	if err := r.primary.init(ctx); err != nil {
		return err
	}
	admin := r.primary.dsn("postgres")
	if err := execOnce(ctx, admin, "CREATE DATABASE "+LedgerDatabase); err != nil {
		return fmt.Errorf("create ledger database: %w", err)
	}
	via, err := link(net.JoinHostPort("127.0.0.1", strconv.Itoa(r.primary.port)))
	if err != nil {
		return err
	}
	if r.standby, err = newNode(ctx, st, bin, standbySettings); err != nil {
		return err
	}
	if err := r.standby.clone(ctx, via); err != nil {
		return err
	}
	if err := r.standby.run(ctx); err != nil {
		return err
	}
	r.PrimaryURL, r.StandbyURL = r.primary.dsn(LedgerDatabase), r.standby.dsn(LedgerDatabase)
	return waitStreaming(ctx, r.standby.dsn("postgres"))
}

// newNode makes the run dir of one server and picks its port.
func newNode(ctx context.Context, st *starter, bin string, settings []string) (*pgNode, error) {
	acct, err := postgresAccount()
	if err != nil {
		return nil, err
	}
	if acct.cred != nil {
		if err := checkTraversable(st.base, acct.uid, acct.gid); err != nil {
			return nil, err
		}
	}
	dir, err := newRunDir(st.base, pgDirPrefix)
	if err != nil {
		return nil, err
	}
	n := &pgNode{pg: &localPG{bin: bin, dir: dir, acct: acct, log: st.log, settings: settings, cache: st.cfg.ClusterCache}}
	if acct.cred != nil {
		if err := os.Chown(dir, acct.uid, acct.gid); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("chown %s: %w", dir, err)
		}
	}
	if n.port, err = freePort(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return n, ctx.Err()
}

// init runs initdb and starts the server.
func (n *pgNode) init(ctx context.Context) error {
	if err := n.pg.initdb(ctx); err != nil {
		return err
	}
	return n.run(ctx)
}

// run starts the server on its port and waits until it answers.
func (n *pgNode) run(ctx context.Context) error {
	n.pg.log.printf("starting postgres on 127.0.0.1:%d (data %s) ...", n.port, n.pg.dir)
	p, _, err := n.pg.launch(ctx, n.port)
	if err != nil {
		return err
	}
	n.proc = p
	return nil
}

// clone fills the node's data dir from the primary at addr with
// pg_basebackup -R: standby.signal, and a primary_conninfo naming addr.
func (n *pgNode) clone(ctx context.Context, addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("replication link address %q: %w", addr, err)
	}
	t0 := time.Now()
	cmd := n.pg.command(ctx, "pg_basebackup", "-D", filepath.Join(n.pg.dir, "data"), "-R", "-X", "stream",
		"-c", "fast", "-h", host, "-p", port, "-U", "postgres", "--no-sync")
	if err := runTool(ctx, cmd, "pg_basebackup"); err != nil {
		return err
	}
	n.pg.log.printf("pg_basebackup through %s done in %v", addr, time.Since(t0).Round(time.Millisecond))
	return nil
}

func (n *pgNode) dsn(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", n.port, db)
}

// stop shuts the server down (if it runs) and removes its dir.
func (n *pgNode) stop() error {
	var err error
	if n.proc != nil {
		err = stopPostgres(n.proc)
	}
	if rmErr := os.RemoveAll(n.pg.dir); rmErr != nil {
		err = errors.Join(err, fmt.Errorf("remove %s: %w", n.pg.dir, rmErr))
	}
	return err
}

// execOnce runs one statement on a fresh connection.
func execOnce(ctx context.Context, dsn, stmt string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, stmt)
	return err
}

// waitStreaming waits until the standby's WAL receiver streams.
func waitStreaming(ctx context.Context, dsn string) error {
	return poll(ctx, streamingLimit, pgPollEvery, nil, func(ctx context.Context) error {
		status, err := pgAsk(ctx, dsn, `SELECT coalesce((SELECT status FROM pg_stat_wal_receiver), 'none')`)
		if err != nil {
			return err
		}
		if status != "streaming" {
			return fmt.Errorf("standby wal receiver %s", status)
		}
		return nil
	})
}

// Crash kills the primary's whole process group with SIGKILL, as a power
// cut would stop the server (its shared memory, wal_buffers included, is
// gone; what it wrote to the OS survives), then starts it again on the
// same data dir and port and waits until crash recovery is over and it
// answers. The standby reconnects by itself.
func (r *Replicated) Crash(ctx context.Context) error {
	if err := r.Kill(); err != nil {
		return err
	}
	return r.Restart(ctx)
}

// Kill is the first half of Crash: the primary dies at once. Postgres
// puts each child in a session of its own (setsid), so a signal to the
// postmaster's process group misses them: the postmaster is stopped (it
// forks no more), its children are killed, then it is.
func (r *Replicated) Kill() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.primary == nil || r.primary.proc == nil {
		return errors.New("replicated postgres: no primary running")
	}
	p := r.primary.proc
	if err := syscall.Kill(p.pid(), syscall.SIGSTOP); err != nil {
		return fmt.Errorf("stop primary: %w", err)
	}
	children := childrenOf(p.pid())
	for _, c := range children {
		_ = syscall.Kill(c, syscall.SIGKILL)
	}
	if err := syscall.Kill(p.pid(), syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill primary: %w", err)
	}
	if !p.waitFor(killWait) {
		return fmt.Errorf("primary pid %d still running after SIGKILL", p.pid())
	}
	if err := allGone(children, killWait); err != nil {
		return err
	}
	r.primary.proc = nil
	r.crashes++
	return nil
}

// HoldWALWriter freezes the primary's WAL writer (SIGSTOP) until the
// next Kill: from then on only a synchronous commit writes WAL out, so a
// crash lands inside the window before the WAL writer's next cycle by
// construction, not by timing (that cycle also starts early when an
// asynchronous commit completes a WAL page).
func (r *Replicated) HoldWALWriter() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.primary == nil || r.primary.proc == nil {
		return errors.New("replicated postgres: no primary running")
	}
	return r.primary.signalWALWriter(syscall.SIGSTOP)
}

// ReleaseWALWriter lets a held WAL writer go on (a no-op when none is
// held, or the primary is down).
func (r *Replicated) ReleaseWALWriter() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.primary == nil || r.primary.proc == nil {
		return nil
	}
	return r.primary.signalWALWriter(syscall.SIGCONT)
}

// walWriterWait bounds how long a primary that was just started may take
// to show its WAL writer: the postmaster forks it once recovery is done,
// about when it accepts connections, and the child names itself
// ("postgres: walwriter") a moment later, which a loaded machine
// stretches.
const walWriterWait = 5 * time.Second

// signalWALWriter sends sig to the server's WAL writer.
func (n *pgNode) signalWALWriter(sig syscall.Signal) error {
	pid, err := childNamed(n.proc.pid(), "walwriter", walWriterWait)
	if err != nil {
		return fmt.Errorf("replicated postgres: the primary has no WAL writer: %w", err)
	}
	return syscall.Kill(pid, sig)
}

// childNamed waits up to within for a child of parent whose command line
// holds name, and returns its pid.
func childNamed(parent int, name string, within time.Duration) (int, error) {
	for deadline := time.Now().Add(within); ; time.Sleep(10 * time.Millisecond) {
		for _, c := range childrenOf(parent) {
			cmd, err := os.ReadFile("/proc/" + strconv.Itoa(c) + "/cmdline")
			if err == nil && strings.Contains(string(cmd), name) {
				return c, nil
			}
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("no child of pid %d named %q after %v", parent, name, within)
		}
	}
}

// childrenOf lists the live processes whose parent is pid.
func childrenOf(pid int) []int {
	var out []int
	for _, p := range Processes() {
		if p.Parent == pid {
			out = append(out, p.PID)
		}
	}
	return out
}

// allGone waits until every pid has exited: a backend that outlives the
// postmaster by a moment still holds the shared memory, and a new
// postmaster refuses to start beside it.
func allGone(pids []int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				return fmt.Errorf("postgres child %d still alive %v after SIGKILL", pid, limit)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	return nil
}

// Restart is the second half of Crash: the primary starts again on its
// data dir and port, recovers from its WAL and answers.
func (r *Replicated) Restart(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.primary == nil {
		return errors.New("replicated postgres: closed")
	}
	if r.primary.proc != nil {
		return nil
	}
	return r.primary.run(ctx)
}

// Crashes counts the primary's crashes so far.
func (r *Replicated) Crashes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.crashes
}

// Close stops the standby, then the primary, and removes their dirs. It
// is idempotent; a nil *Replicated is a no-op.
func (r *Replicated) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	if r.primary != nil && r.primary.proc != nil {
		_ = r.primary.signalWALWriter(syscall.SIGCONT) // a held one could not shut down
	}
	var errs []error
	for _, n := range []*pgNode{r.standby, r.primary} {
		if n != nil {
			errs = append(errs, n.stop())
		}
	}
	return errors.Join(errs...)
}
