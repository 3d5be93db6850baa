package provision

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	dc "github.com/ory/dockertest/v3/docker"
)

// clearDockerEnv unsets DOCKER_CERT_PATH, the one variable dockertest
// still reads when given an endpoint (it would switch tcp hosts to TLS).
func clearDockerEnv(t *testing.T) {
	t.Setenv("DOCKER_CERT_PATH", "")
}

// timedDetect runs detect and fails unless it reports no engine within
// [min, max].
func timedDetect(t *testing.T, detect func(context.Context) error, min, max time.Duration) {
	t.Helper()
	t0 := time.Now()
	err := detect(context.Background())
	d := time.Since(t0)
	t.Logf("%v after %v", err, d.Round(time.Microsecond))
	if !errors.Is(err, errNoDocker) {
		t.Errorf("err = %v; want errNoDocker", err)
	}
	assertOneLine(t, err)
	if d < min || d > max {
		t.Errorf("detection took %v; want between %v and %v", d, min, max)
	}
}

// availableAt is DockerAvailable on host, as a detect func.
func availableAt(host string) func(context.Context) error {
	return func(ctx context.Context) error { return DockerAvailable(ctx, host) }
}

func TestDockerAbsentIsDetectedAtOnce(t *testing.T) {
	clearDockerEnv(t)
	absent := filepath.Join(t.TempDir(), "docker.sock")
	timedDetect(t, func(ctx context.Context) error {
		_, err := dockerPool(ctx, "", absent)
		return err
	}, 0, 100*time.Millisecond)
	if _, err := os.Stat(defaultDockerSocket); err != nil {
		timedDetect(t, availableAt(""), 0, 100*time.Millisecond)
	}
}

// The environment names an engine that never answers; with no DockerHost
// and no socket, detection must still fail at once, without dialing it.
func TestDockerEnvironmentIsNotConsulted(t *testing.T) {
	clearDockerEnv(t)
	sock := filepath.Join(t.TempDir(), "d.sock")
	stop := silentServer(t, sock)
	defer stop()
	t.Setenv("DOCKER_HOST", "unix://"+sock)
	t.Setenv("DOCKER_URL", "unix://"+sock)
	t.Setenv("DOCKER_MACHINE_NAME", "default")
	absent := filepath.Join(t.TempDir(), "docker.sock")
	timedDetect(t, func(ctx context.Context) error {
		_, err := dockerPool(ctx, "", absent)
		return err
	}, 0, 100*time.Millisecond)
}

func TestDockerHostWithoutSocket(t *testing.T) {
	clearDockerEnv(t)
	timedDetect(t, availableAt("unix:///nonexistent.sock"), 0, 100*time.Millisecond)
}

// A DockerHost on a closed loopback port is refused: detection fails well
// within the ping timeout instead of waiting for it (or hanging).
func TestDockerHostOnClosedPortFailsFast(t *testing.T) {
	clearDockerEnv(t)
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	host := fmt.Sprintf("tcp://127.0.0.1:%d", port)
	timedDetect(t, availableAt(host), 0, dockerPingTimeout/2)
	if err := DockerAvailable(context.Background(), host); !errors.Is(err, dc.ErrConnectionRefused) {
		t.Errorf("err = %v; want the connection to %s refused", err, host)
	}

	// The same through Start's Docker step: Config.DockerHost reaches it
	// (without it, the step would stop at the absent default socket).
	st := newStarter(Config{DockerHost: host})
	t0 := time.Now()
	pool, err := st.docker(context.Background())
	d := time.Since(t0)
	if pool != nil || !errors.Is(err, errNoDocker) || !errors.Is(err, dc.ErrConnectionRefused) {
		t.Errorf("starter.docker = %v, %v; want errNoDocker, the connection to %s refused", pool, err, host)
	}
	if d > dockerPingTimeout/2 {
		t.Errorf("starter.docker took %v; want well under the %v ping timeout", d, dockerPingTimeout)
	}
}

func TestDockerHostThatNeverAnswers(t *testing.T) {
	clearDockerEnv(t)
	sock := filepath.Join(t.TempDir(), "d.sock")
	stop := silentServer(t, sock)
	defer stop()
	timedDetect(t, availableAt("unix://"+sock), dockerPingTimeout-100*time.Millisecond, 2500*time.Millisecond)
}

func TestDockerDetectionHonoursContext(t *testing.T) {
	clearDockerEnv(t)
	sock := filepath.Join(t.TempDir(), "d.sock")
	stop := silentServer(t, sock)
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	err := DockerAvailable(ctx, "unix://"+sock)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(t0) > time.Second {
		t.Errorf("err = %v after %v; want the context's deadline", err, time.Since(t0))
	}
}

// silentServer listens on a unix socket, accepts connections and never
// answers. stop closes everything.
func silentServer(t *testing.T, path string) (stop func()) {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
		wg    sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	return func() {
		l.Close()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}
}
