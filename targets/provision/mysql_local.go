package provision

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Limits and names of the local MariaDB start.
const (
	mysqlStartAttempts = 5                // new port each time the server exits early
	mysqlReadyLimit    = 30 * time.Second // per attempt
	mysqlPollEvery     = 10 * time.Millisecond
	mysqlProbeTimeout  = time.Second
	mysqlLogFile       = "mariadb.log"
	mysqlSocketFile    = "mysqld.sock"
	mysqlSocketMax     = 107         // bytes in a unix socket path
	mysqlDatabase      = "idemchaos" // the database made for the harness
)

// mysqlSettings are the options of a throwaway MariaDB, given to the
// bootstrap of mariadb-install-db and to mariadbd alike: a commit is
// written at once but never waited on the disk for (a killed mariadbd
// loses nothing it acknowledged; a crash of the machine would), UTF-8 as
// Debian's own configuration has it, and no DNS.
var mysqlSettings = []string{
	"--innodb-flush-log-at-trx-commit=2", "--innodb-doublewrite=0", "--innodb-log-file-size=16M",
	"--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci",
	"--max-connections=300", "--skip-name-resolve",
}

// localMySQL is one throwaway MariaDB in dir, run by acct.
type localMySQL struct {
	bins mariaDBBins
	dir  string
	acct account
	log  logger
}

// startLocalMySQL runs mariadb-install-db and mariadbd in a new dir under
// base and returns the URL of the harness's database and what to stop.
func startLocalMySQL(ctx context.Context, base string, bins mariaDBBins, log logger) (string, *part, error) {
	acct, err := mysqlAccount()
	if err != nil {
		return "", nil, err
	}
	if acct.cred != nil {
		if err := checkTraversable(base, acct.uid, acct.gid); err != nil {
			return "", nil, err
		}
	}
	dir, err := newRunDir(base, mysqlDirPrefix)
	if err != nil {
		return "", nil, err
	}
	m := &localMySQL{bins: bins, dir: dir, acct: acct, log: log}
	url, p, err := m.start(ctx)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return url, p, nil
}

func (m *localMySQL) start(ctx context.Context) (string, *part, error) {
	if sock := m.socket(); len(sock) > mysqlSocketMax {
		return "", nil, fmt.Errorf("mariadb socket path %s is longer than %d bytes; use a shorter temp dir", sock, mysqlSocketMax)
	}
	if m.acct.cred != nil {
		if err := os.Chown(m.dir, m.acct.uid, m.acct.gid); err != nil {
			return "", nil, fmt.Errorf("chown %s: %w", m.dir, err)
		}
	}
	if err := m.install(ctx); err != nil {
		return "", nil, err
	}
	version := m.version(ctx)
	return onFreePort(ctx, "mariadb", mysqlStartAttempts, m.log, func(port int) (string, *part, error) {
		m.log.printf("starting mariadb %s on 127.0.0.1:%d (data %s) ...", version, port, m.dataDir())
		return m.serve(ctx, port)
	})
}

func (m *localMySQL) dataDir() string { return filepath.Join(m.dir, "data") }
func (m *localMySQL) socket() string  { return filepath.Join(m.dir, mysqlSocketFile) }

// settings are mysqlSettings with the server's temporary files in its own
// dir. Left in the shared /tmp, they would be lost to any other MariaDB
// starting on the machine: a server deletes every #sql* file of its
// tmpdir when it starts (mariadb-install-db's bootstrap too), live
// internal temporary tables of another server included, whose next query
// then fails ("Error on delete of '/tmp/#sql-temptable-...'").
func (m *localMySQL) settings() []string {
	return append(slices.Clone(mysqlSettings), "--tmpdir="+m.dir)
}

// install creates the system tables in dir/data: root@127.0.0.1 without
// a password (--auth-root-authentication-method=normal), no test database.
func (m *localMySQL) install(ctx context.Context) error {
	t0 := time.Now()
	m.log.printf("mariadb-install-db %s as %s (uid %d) ...", m.dataDir(), m.acct.name, m.acct.uid)
	args := append([]string{"--no-defaults", "--datadir=" + m.dataDir(),
		"--auth-root-authentication-method=normal", "--skip-test-db"}, m.settings()...)
	cmd := exec.CommandContext(ctx, m.bins.install, args...)
	cmd.Dir, cmd.Env = m.dir, childEnv()
	cmd.SysProcAttr = procAttr(syscall.SIGKILL, m.acct)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	if err := runTool(ctx, cmd, "mariadb-install-db"); err != nil {
		return err
	}
	m.log.printf("mariadb-install-db done in %v", time.Since(t0).Round(time.Millisecond))
	return nil
}

// version returns e.g. "10.11.19", or "" when mariadbd --version fails.
func (m *localMySQL) version(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, m.bins.server, "--version").Output()
	if err != nil {
		return ""
	}
	fields := strings.Fields(string(out)) // mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu ...
	for i, f := range fields[:max(len(fields)-1, 0)] {
		if f == "Ver" {
			v, _, _ := strings.Cut(fields[i+1], "-")
			return v
		}
	}
	return ""
}

// serve starts mariadbd on port, waits until it answers and creates the
// harness's database.
func (m *localMySQL) serve(ctx context.Context, port int) (string, *part, error) {
	logPath := filepath.Join(m.dir, mysqlLogFile)
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return "", nil, fmt.Errorf("open mariadb log: %w", err)
	}
	defer logf.Close()
	args := append([]string{"--no-defaults", "--datadir=" + m.dataDir(),
		"--port=" + strconv.Itoa(port), "--bind-address=127.0.0.1", "--socket=" + m.socket(),
		"--pid-file=" + filepath.Join(m.dir, mysqlPidFile)}, m.settings()...)
	cmd := exec.Command(m.bins.server, args...)
	cmd.Dir, cmd.Env = m.dir, childEnv()
	cmd.Stdout, cmd.Stderr = logf, logf // no --log-error: the error log is stderr
	cmd.SysProcAttr = procAttr(syscall.SIGKILL, m.acct)
	p, err := startProc(cmd)
	if err != nil {
		return "", nil, fmt.Errorf("start mariadbd: %w", err)
	}
	admin := mysqlRoot(port, "")
	t0 := time.Now()
	err = poll(ctx, mysqlReadyLimit, mysqlPollEvery, p.done, func(ctx context.Context) error {
		return mysqlProbe(ctx, admin, m.dataDir())
	})
	if err == nil {
		err = mysqlExec(ctx, admin, "CREATE DATABASE IF NOT EXISTS "+mysqlIdent(mysqlDatabase))
	}
	if err != nil {
		stopErr := stopMySQL(p)
		if ctx.Err() != nil {
			return "", nil, ctx.Err()
		}
		return "", nil, errors.Join(&startError{server: "mariadb", port: port, err: err, log: logTail(logPath)}, stopErr)
	}
	m.log.printf("mariadb ready on 127.0.0.1:%d in %v", port, time.Since(t0).Round(time.Millisecond))
	return fmt.Sprintf("mysql://root@127.0.0.1:%d/%s", port, mysqlDatabase), m.part(p), nil
}

// part tells Close how to stop the server and remove its dir.
func (m *localMySQL) part(p *proc) *part {
	return &part{name: "mysql", pid: p.pid(), dir: m.dir, stop: func() error {
		err := stopMySQL(p)
		if rmErr := os.RemoveAll(m.dir); rmErr != nil {
			err = errors.Join(err, fmt.Errorf("remove %s: %w", m.dir, rmErr))
		}
		return err
	}, proc: p}
}

// stopMySQL: SIGTERM (a normal shutdown), then SIGKILL.
func stopMySQL(p *proc) error {
	return p.stop(stopStep{syscall.SIGTERM, 10 * time.Second})
}

// mysqlRoot is the driver's config for root on a local server's database.
func mysqlRoot(port int, db string) *mysql.Config {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "root", "tcp", loopback(port), db
	return cfg
}

// mysqlProbe opens one connection and, when dataDir is set, checks that
// the server runs on it: another server may have taken the port between
// freePort and our bind, and ours then exits while theirs answers.
func mysqlProbe(ctx context.Context, cfg *mysql.Config, dataDir string) error {
	if dataDir == "" {
		_, err := mysqlAsk(ctx, cfg, mysqlProbeTimeout, "")
		return err
	}
	got, err := mysqlAsk(ctx, cfg, mysqlProbeTimeout, "SELECT @@datadir")
	if err == nil && filepath.Clean(got) != dataDir {
		err = fmt.Errorf("port answered by another server (datadir %s)", got)
	}
	return err
}
