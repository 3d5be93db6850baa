package provision

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
	"time"
)

// killWait bounds the wait after the final SIGKILL of a process group.
const killWait = 5 * time.Second

// proc is a child process this package started and reaps.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once Wait returned
	err  error         // Wait's result; read only after done is closed
}

// startProc starts cmd and reaps it in the background.
func startProc(cmd *exec.Cmd) (*proc, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// waitFor reports whether the process exited within d.
func (p *proc) waitFor(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}

// stopStep is one escalation step: send sig, then wait up to wait.
type stopStep struct {
	sig  syscall.Signal
	wait time.Duration
}

// stop sends each signal in turn until the process exits, then SIGKILLs
// its whole process group as a last resort. A process that already
// exited is not an error.
func (p *proc) stop(steps ...stopStep) error {
	for _, s := range steps {
		if p.exited() {
			return nil
		}
		if err := p.cmd.Process.Signal(s.sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return fmt.Errorf("signal %v to pid %d: %w", s.sig, p.pid(), err)
		}
		if p.waitFor(s.wait) {
			return nil
		}
	}
	if p.exited() {
		return nil
	}
	// The leader is not reaped yet, so its pid still names our group.
	if err := syscall.Kill(-p.pid(), syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill process group %d: %w", p.pid(), err)
	}
	if !p.waitFor(killWait) {
		return fmt.Errorf("pid %d still running after SIGKILL", p.pid())
	}
	if !waitGroupGone(p.pid(), killWait) {
		return fmt.Errorf("process group %d still running after SIGKILL", p.pid())
	}
	return nil
}

// waitGroupGone waits up to within for every process of the process group
// pgid to be gone: a SIGKILL sent to a group is delivered, not done, when
// kill returns, and a tool's children (mariadb-install-db's mariadbd
// --bootstrap) outlive its own reaping by as long as a loaded machine
// takes to tear them down. It reports whether the group is gone.
func waitGroupGone(pgid int, within time.Duration) bool {
	for deadline := time.Now().Add(within); ; time.Sleep(5 * time.Millisecond) {
		if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// account is the user a child process runs as.
type account struct {
	name     string
	uid, gid int
	cred     *syscall.Credential // nil: run as the current user
}

// postgresAccount returns the current user, or when running as root the
// "postgres" user (else "nobody"), since Postgres refuses to run as root.
func postgresAccount() (account, error) { return serverAccount("postgres", "postgres") }

// mysqlAccount is postgresAccount for mariadbd, which refuses root too, with
// the "mysql" user. mariadbd's own --user is not used: a process that
// changes its uid loses its parent-death signal.
func mysqlAccount() (account, error) { return serverAccount("mariadbd", "mysql") }

// serverAccount returns the current user, or when running as root the user
// named login (else "nobody"), for a server that refuses to run as root.
// Groups stay nil so that the child's supplementary groups are cleared.
func serverAccount(server, login string) (account, error) {
	if os.Geteuid() != 0 {
		return account{name: "current user", uid: os.Geteuid(), gid: os.Getegid()}, nil
	}
	for _, name := range []string{login, "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.Atoi(u.Uid)
		gid, err2 := strconv.Atoi(u.Gid)
		if err1 != nil || err2 != nil {
			continue
		}
		cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		return account{name: name, uid: uid, gid: gid, cred: cred}, nil
	}
	return account{}, fmt.Errorf("running as root and neither user %s nor nobody exists; %s refuses to run as root", login, server)
}

// procAttr returns process attributes: own process group, parent-death
// signal, and the account's credentials.
func procAttr(deathSig syscall.Signal, acct account) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: deathSig, Credential: acct.cred}
}

// childEnv is the whole environment of started servers: fixed, so that
// nothing of the caller's shell (a PGDATA, a locale, a TZ) changes how a
// throwaway store behaves.
func childEnv() []string {
	return []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "TZ=UTC", "LC_ALL=C", "LANG=C"}
}

// onFreePort starts a server with serve on a free loopback port, trying a new
// port when the server exits early (another process took the port between
// our probe and its bind), up to attempts times.
func onFreePort(ctx context.Context, name string, attempts int, log logger, serve func(port int) (string, *part, error)) (string, *part, error) {
	var lastErr error
	for attempt := 1; attempt <= attempts; attempt++ {
		port, err := freePort()
		if err != nil {
			return "", nil, err
		}
		url, p, err := serve(port)
		if err == nil {
			return url, p, nil
		}
		if !errors.Is(err, errExited) || ctx.Err() != nil {
			return "", nil, err
		}
		lastErr = err
		log.printf("%s attempt %d: %s; trying a new port", name, attempt, retryReason(err))
	}
	return "", nil, fmt.Errorf("%s failed %d times: %w", name, attempts, lastErr)
}
