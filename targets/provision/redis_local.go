package provision

import (
	"cmp"
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

	"github.com/redis/go-redis/v9"
)

// Limits of the local Redis start.
const (
	redisStartAttempts = 5                // new port each time the server exits early
	redisReadyLimit    = 10 * time.Second // per attempt
	redisPollEvery     = 3 * time.Millisecond
	redisLogFile       = "redis.log"
)

// localRedis is one throwaway redis-server in dir.
type localRedis struct {
	bin  string
	dir  string
	log  logger
	conf string   // config file given first ("": none); a sentinel needs one
	args []string // more arguments after the common ones (a replica's, a sentinel's)
	name string   // in progress lines and part names; "" = "redis"
}

// startLocalRedis runs redis-server in a new dir under base and returns
// its URL and what to stop.
func startLocalRedis(ctx context.Context, base, bin string, log logger) (string, *part, error) {
	dir, err := newRunDir(base, redisDirPrefix)
	if err != nil {
		return "", nil, err
	}
	r := &localRedis{bin: bin, dir: dir, log: log}
	url, p, err := r.start(ctx)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return url, p, nil
}

func (r *localRedis) start(ctx context.Context) (string, *part, error) {
	version := r.version(ctx)
	return onFreePort(ctx, "redis", redisStartAttempts, r.log, func(port int) (string, *part, error) {
		r.log.printf("starting redis %s on 127.0.0.1:%d (dir %s) ...", version, port, r.dir)
		return r.serve(ctx, port)
	})
}

// version returns e.g. "7.0.15", or "" when redis-server --version fails.
func (r *localRedis) version(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, r.bin, "--version").Output()
	if err != nil {
		return ""
	}
	for _, f := range strings.Fields(string(out)) { // Redis server v=7.0.15 sha=...
		if v, ok := strings.CutPrefix(f, "v="); ok {
			return v
		}
	}
	return ""
}

// serve starts redis-server on port and waits until it answers PING.
func (r *localRedis) serve(ctx context.Context, port int) (string, *part, error) {
	logPath := filepath.Join(r.dir, redisLogFile)
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return "", nil, fmt.Errorf("open redis log: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(r.bin, r.argv(port)...)
	cmd.Dir, cmd.Env = r.dir, childEnv()
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = procAttr(syscall.SIGKILL, account{})
	p, err := startProc(cmd)
	if err != nil {
		return "", nil, fmt.Errorf("start redis-server: %w", err)
	}
	if err := writePid(filepath.Join(r.dir, redisPidFile), p.pid()); err != nil {
		return "", nil, errors.Join(err, stopRedis(p))
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	t0 := time.Now()
	if err := r.wait(ctx, p, addr); err != nil {
		stopErr := stopRedis(p)
		if ctx.Err() != nil {
			return "", nil, ctx.Err()
		}
		return "", nil, errors.Join(&startError{server: "redis", port: port, err: err, log: logTail(logPath)}, stopErr)
	}
	r.log.printf("redis ready on %s in %v", addr, time.Since(t0).Round(time.Millisecond))
	return "redis://" + addr + "/0", r.part(p), nil
}

// argv is the command line: the config file if any, the common settings,
// then the node's own. An empty --logfile sends the log to stdout, i.e.
// the log file.
func (r *localRedis) argv(port int) []string {
	var argv []string
	if r.conf != "" {
		argv = append(argv, r.conf)
	}
	argv = append(argv, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", r.dir,
		"--logfile", "", "--loglevel", "warning", "--protected-mode", "no", "--maxclients", "10000")
	return append(argv, r.args...)
}

// wait polls PING until redis answers or exits.
func (r *localRedis) wait(ctx context.Context, p *proc, addr string) error {
	opt := &redis.Options{Addr: addr, DialTimeout: 200 * time.Millisecond,
		ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond}
	return poll(ctx, redisReadyLimit, redisPollEvery, p.done, func(ctx context.Context) error {
		return redisPing(ctx, opt, p.pid())
	})
}

// part tells Close how to stop the server and remove its dir.
func (r *localRedis) part(p *proc) *part {
	return &part{name: cmp.Or(r.name, "redis"), pid: p.pid(), dir: r.dir, stop: func() error {
		err := stopRedis(p)
		if rmErr := os.RemoveAll(r.dir); rmErr != nil {
			err = errors.Join(err, fmt.Errorf("remove %s: %w", r.dir, rmErr))
		}
		return err
	}, proc: p}
}

// stopRedis: SIGTERM (nothing to save), then SIGKILL.
func stopRedis(p *proc) error {
	return p.stop(stopStep{syscall.SIGTERM, 5 * time.Second})
}
