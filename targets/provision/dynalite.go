package provision

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Limits and names of the local dynalite start.
const (
	dynaliteStartAttempts = 5                // new port each time the server exits early
	dynaliteReadyLimit    = 20 * time.Second // per attempt: Node loads the package first
	dynalitePollEvery     = 10 * time.Millisecond
	dynaliteLogFile       = "dynalite.log"
	// dynaliteScript is where npm installs dynalite's command, under the
	// directory of the lock file that pins it.
	dynaliteScript = "node_modules/dynalite/cli.js"
	// DynalitePackage is the npm package StartDynalite runs.
	DynalitePackage = "dynalite"
)

// DynaliteConfig says which dynalite to start and where.
type DynaliteConfig struct {
	// Dir is where npm ci installed dynalite from a lock file that pins
	// it: Dir/node_modules/dynalite/cli.js is run with node.
	Dir     string
	TempDir string    // base of its data dir; "" = os.TempDir()
	Log     io.Writer // progress lines; nil = discard
}

// Dynalite is a throwaway dynalite, a DynamoDB implementation in Node on
// LevelDB that speaks DynamoDB's HTTP API: a node process on a free
// loopback port, its LevelDB in a data dir of its own, in its own process
// group with a parent-death signal, its pid recorded for Sweep, as a local
// Redis is.
type Dynalite struct {
	// Endpoint is the URL a DynamoDB client is pointed at
	// (http://127.0.0.1:PORT).
	Endpoint string
	// Version is the version of the package started ("4.0.0").
	Version string
	// Dir is its data dir, removed by Close (or, after a killed run, by
	// Sweep).
	Dir string

	part *part
}

// StartDynalite sweeps stale dirs under the base, then starts dynalite
// from cfg.Dir and returns once it answers a ListTables. Without node or
// the installed package it fails with one line naming what is missing.
func StartDynalite(ctx context.Context, cfg DynaliteConfig) (*Dynalite, error) {
	st := newStarter(Config{TempDir: cfg.TempDir, Log: cfg.Log})
	if _, err := Sweep(st.base); err != nil {
		st.log.printf("sweep %s: %v", st.base, err)
	}
	node, script, err := dynaliteCommand(cfg.Dir)
	if err != nil {
		return nil, err
	}
	dir, err := newRunDir(st.base, dynaliteDirPrefix)
	if err != nil {
		return nil, err
	}
	d := &Dynalite{Version: dynaliteVersion(cfg.Dir), Dir: dir}
	l := &localDynalite{node: node, script: script, dir: dir, log: st.log}
	d.Endpoint, d.part, err = onFreePort(ctx, "dynalite", dynaliteStartAttempts, st.log, func(port int) (string, *part, error) {
		st.log.printf("starting dynalite %s on 127.0.0.1:%d (dir %s) ...", d.Version, port, dir)
		return l.serve(ctx, port)
	})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return d, nil
}

// Close stops dynalite and removes its data dir. It is idempotent.
func (d *Dynalite) Close() error {
	if d == nil || d.part == nil {
		return nil
	}
	p := d.part
	d.part = nil
	return p.stop()
}

// dynaliteCommand finds node and dynalite's command under dir.
func dynaliteCommand(dir string) (node, script string, err error) {
	script = filepath.Join(dir, dynaliteScript)
	if _, err := os.Stat(script); err != nil {
		return "", "", &UnavailableError{Service: "dynalite", Hint: "npm ci in " + dir + " (its package-lock.json pins it)",
			Err: fmt.Errorf("the npm package %s is not installed in %s", DynalitePackage, dir)}
	}
	if node, err = exec.LookPath("node"); err != nil {
		return "", "", &UnavailableError{Service: "dynalite", Hint: "sudo apt-get install -y nodejs npm (scripts/setup)",
			Err: fmt.Errorf("the npm package %s runs on Node.js: %w", DynalitePackage, err)}
	}
	return node, script, nil
}

// dynaliteVersion is the installed package's version ("" when unknown).
func dynaliteVersion(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", DynalitePackage, "package.json"))
	if err != nil {
		return ""
	}
	return packageVersion(b)
}

// localDynalite is one dynalite process in dir.
type localDynalite struct {
	node, script, dir string
	log               logger
}

// serve starts dynalite on port, its LevelDB in dir, and waits until it
// answers. Tables are ACTIVE as soon as they are created (no CREATING
// state to wait out).
func (l *localDynalite) serve(ctx context.Context, port int) (string, *part, error) {
	logPath := filepath.Join(l.dir, dynaliteLogFile)
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return "", nil, fmt.Errorf("open dynalite log: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(l.node, l.script, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"--path", filepath.Join(l.dir, "data"), "--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0")
	cmd.Dir, cmd.Env = l.dir, childEnv()
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = procAttr(syscall.SIGKILL, account{})
	p, err := startProc(cmd)
	if err != nil {
		return "", nil, fmt.Errorf("start dynalite: %w", err)
	}
	if err := writePid(filepath.Join(l.dir, dynalitePidFile), p.pid()); err != nil {
		return "", nil, errors.Join(err, stopDynalite(p))
	}
	endpoint := "http://" + loopback(port)
	t0 := time.Now()
	err = poll(ctx, dynaliteReadyLimit, dynalitePollEvery, p.done, func(ctx context.Context) error {
		return DynamoDBCall(ctx, endpoint, "ListTables", map[string]any{}, nil)
	})
	if err != nil {
		stopErr := stopDynalite(p)
		if ctx.Err() != nil {
			return "", nil, ctx.Err()
		}
		return "", nil, errors.Join(&startError{server: "dynalite", port: port, err: err, log: logTail(logPath)}, stopErr)
	}
	l.log.printf("dynalite ready on %s in %v", endpoint, time.Since(t0).Round(time.Millisecond))
	return endpoint, l.part(p), nil
}

// part tells Close how to stop the server and remove its dir.
func (l *localDynalite) part(p *proc) *part {
	return &part{name: "dynalite", pid: p.pid(), dir: l.dir, stop: func() error {
		err := stopDynalite(p)
		if rmErr := os.RemoveAll(l.dir); rmErr != nil {
			err = errors.Join(err, fmt.Errorf("remove %s: %w", l.dir, rmErr))
		}
		return err
	}, proc: p}
}

// stopDynalite: SIGTERM (its LevelDB is thrown away), then SIGKILL.
func stopDynalite(p *proc) error {
	return p.stop(stopStep{syscall.SIGTERM, 5 * time.Second})
}
