package provision

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Limits of the local Postgres start.
const (
	pgStartAttempts = 5                // new port each time the server exits early
	pgReadyLimit    = 30 * time.Second // per attempt
	pgPollEvery     = 10 * time.Millisecond
	pgProbeTimeout  = time.Second
	pgLogFile       = "postgres.log"
)

// localPG is one throwaway cluster in dir, run by acct.
type localPG struct {
	bin  string
	dir  string
	acct account
	log  logger
	// settings are the server's -c settings; nil: singleSettings.
	settings []string
	// cache is the cluster cache (Config.ClusterCache); "": initdb always.
	cache string
	vline string // postgres -V's output, once read
}

// singleSettings are the settings of a throwaway single server: nothing
// of it has to survive a crash, so nothing waits on the disk.
var singleSettings = []string{"fsync=off", "synchronous_commit=off", "full_page_writes=off"}

// startLocalPostgres runs initdb and postgres in a new dir under base and
// returns the admin DSN and what to stop.
func startLocalPostgres(ctx context.Context, base, bin, cache string, log logger) (string, *part, error) {
	acct, err := postgresAccount()
	if err != nil {
		return "", nil, err
	}
	if acct.cred != nil {
		if err := checkTraversable(base, acct.uid, acct.gid); err != nil {
			return "", nil, err
		}
	}
	dir, err := newRunDir(base, pgDirPrefix)
	if err != nil {
		return "", nil, err
	}
	pg := &localPG{bin: bin, dir: dir, acct: acct, log: log, cache: cache}
	dsn, p, err := pg.start(ctx)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return dsn, p, nil
}

func (pg *localPG) start(ctx context.Context) (string, *part, error) {
	if pg.acct.cred != nil {
		if err := os.Chown(pg.dir, pg.acct.uid, pg.acct.gid); err != nil {
			return "", nil, fmt.Errorf("chown %s: %w", pg.dir, err)
		}
	}
	if err := pg.initdb(ctx); err != nil {
		return "", nil, err
	}
	version := pg.version(ctx)
	return onFreePort(ctx, "postgres", pgStartAttempts, pg.log, func(port int) (string, *part, error) {
		pg.log.printf("starting postgres %s on 127.0.0.1:%d (data %s) ...", version, port, pg.dir)
		return pg.serve(ctx, port)
	})
}

// command builds a command for a Postgres binary run as pg.acct in pg.dir.
func (pg *localPG) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(pg.bin, name), args...)
	cmd.Dir = pg.dir
	cmd.Env = childEnv()
	cmd.SysProcAttr = procAttr(syscall.SIGKILL, pg.acct)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	return cmd
}

// initdb creates the cluster in dir/data with trust auth for "postgres":
// a copy of the cluster cache's, else initdb's (then kept in the cache).
func (pg *localPG) initdb(ctx context.Context) error {
	tmpl := pg.template(ctx)
	if pg.fromTemplate(tmpl) {
		return nil
	}
	t0 := time.Now()
	pg.log.printf("initdb %s as %s (uid %d) ...", filepath.Join(pg.dir, "data"), pg.acct.name, pg.acct.uid)
	cmd := pg.command(ctx, "initdb", append([]string{"-D", filepath.Join(pg.dir, "data")}, initdbArgs...)...)
	if err := runTool(ctx, cmd, "initdb"); err != nil {
		return err
	}
	pg.log.printf("initdb done in %v", time.Since(t0).Round(time.Millisecond))
	pg.keepTemplate(tmpl)
	return nil
}

// runTool runs a Postgres tool to its end; a failure quotes its output.
func runTool(ctx context.Context, cmd *exec.Cmd, name string) error {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return cancelled(ctx, cmd, name)
		}
		return fmt.Errorf("%s: %w: %s", name, err, lastLines(out.String()))
	}
	return nil
}

// cancelled is runTool's error for a tool its context stopped, once every
// process of the tool's group is gone: the tool is reaped before its
// children (mariadb-install-db's mariadbd --bootstrap, initdb's postgres)
// have died, and a caller that removes the data directory or starts again
// must not meet them.
func cancelled(ctx context.Context, cmd *exec.Cmd, name string) error {
	a := cmd.SysProcAttr
	if cmd.Process == nil || a == nil || !a.Setpgid || waitGroupGone(cmd.Process.Pid, killWait) {
		return ctx.Err()
	}
	return fmt.Errorf("%w (and %s's processes still running %v after SIGKILL)", ctx.Err(), name, killWait)
}

// version returns e.g. "15.18", or "" when postgres -V fails.
func (pg *localPG) version(ctx context.Context) string {
	fields := strings.Fields(pg.versionLine(ctx)) // postgres (PostgreSQL) 15.18 (Debian ...)
	if len(fields) < 3 {
		return ""
	}
	return fields[2]
}

// versionLine is postgres -V's output, run once ("" when it fails).
func (pg *localPG) versionLine(ctx context.Context) string {
	if pg.vline == "" {
		out, err := pg.command(ctx, "postgres", "-V").Output()
		if err != nil {
			return ""
		}
		pg.vline = string(out)
	}
	return pg.vline
}

// serve starts postgres on port and waits until it accepts connections.
func (pg *localPG) serve(ctx context.Context, port int) (string, *part, error) {
	p, dsn, err := pg.launch(ctx, port)
	if err != nil {
		return "", nil, err
	}
	return dsn, pg.part(p), nil
}

// launch starts postgres on port and waits until it accepts connections;
// a server that does not get there is stopped.
func (pg *localPG) launch(ctx context.Context, port int) (*proc, string, error) {
	logPath := filepath.Join(pg.dir, pgLogFile)
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, "", fmt.Errorf("open postgres log: %w", err)
	}
	defer logf.Close()
	args := []string{"-D", filepath.Join(pg.dir, "data"), "-p", strconv.Itoa(port), "-k", pg.dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300"}
	settings := pg.settings
	if settings == nil {
		settings = singleSettings
	}
	for _, s := range settings {
		args = append(args, "-c", s)
	}
	cmd := exec.Command(filepath.Join(pg.bin, "postgres"), args...)
	cmd.Dir, cmd.Env = pg.dir, childEnv()
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = procAttr(syscall.SIGQUIT, pg.acct)
	p, err := startProc(cmd)
	if err != nil {
		return nil, "", fmt.Errorf("start postgres: %w", err)
	}
	dsn := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	t0 := time.Now()
	dataDir := filepath.Join(pg.dir, "data")
	err = poll(ctx, pgReadyLimit, pgPollEvery, p.done, func(ctx context.Context) error {
		return pgProbe(ctx, dsn, dataDir)
	})
	if err != nil {
		stopErr := stopPostgres(p)
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		return nil, "", errors.Join(&startError{server: "postgres", port: port, err: err, log: logTail(logPath)}, stopErr)
	}
	pg.log.printf("postgres ready on 127.0.0.1:%d in %v", port, time.Since(t0).Round(time.Millisecond))
	return p, dsn, nil
}

// part tells Close how to stop the server and remove the cluster.
func (pg *localPG) part(p *proc) *part {
	return &part{name: "postgres", pid: p.pid(), dir: pg.dir, stop: func() error {
		err := stopPostgres(p)
		if rmErr := os.RemoveAll(pg.dir); rmErr != nil {
			err = errors.Join(err, fmt.Errorf("remove %s: %w", pg.dir, rmErr))
		}
		return err
	}}
}

// stopPostgres: fast shutdown, then immediate shutdown, then SIGKILL.
func stopPostgres(p *proc) error {
	return p.stop(stopStep{syscall.SIGINT, 10 * time.Second}, stopStep{syscall.SIGQUIT, 5 * time.Second})
}

// pgProbe opens one connection and, when dataDir is set, checks that
// the server runs on it: another server may have taken the port between
// freePort and our bind, and ours then exits while theirs answers.
func pgProbe(ctx context.Context, dsn, dataDir string) error {
	if dataDir == "" {
		_, err := pgAsk(ctx, dsn, "")
		return err
	}
	got, err := pgAsk(ctx, dsn, "SHOW data_directory")
	if err == nil && got != dataDir {
		err = fmt.Errorf("port answered by another server (data_directory %s)", got)
	}
	return err
}

// pgAsk connects to dsn within the probe timeout and returns the one text
// value query answers (nothing for no query: the connection was the
// question).
func pgAsk(ctx context.Context, dsn, query string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, pgProbeTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	var got string
	if query != "" {
		err = conn.QueryRow(ctx, query).Scan(&got)
	}
	return got, err
}
