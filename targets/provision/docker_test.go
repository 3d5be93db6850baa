package provision

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// clearDockerEnv unsets the variables dockertest reads.
func clearDockerEnv(t *testing.T) {
	for _, k := range []string{"DOCKER_HOST", "DOCKER_URL", "DOCKER_MACHINE_NAME", "DOCKER_CERT_PATH"} {
		t.Setenv(k, "")
	}
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

func TestDockerAbsentIsDetectedAtOnce(t *testing.T) {
	clearDockerEnv(t)
	absent := filepath.Join(t.TempDir(), "docker.sock")
	timedDetect(t, func(ctx context.Context) error {
		_, err := dockerPool(ctx, absent)
		return err
	}, 0, 100*time.Millisecond)
	if _, err := os.Stat(defaultDockerSocket); err != nil {
		timedDetect(t, DockerAvailable, 0, 100*time.Millisecond)
	}
}

func TestDockerHostWithoutSocket(t *testing.T) {
	clearDockerEnv(t)
	t.Setenv("DOCKER_HOST", "unix:///nonexistent.sock")
	timedDetect(t, DockerAvailable, 0, 100*time.Millisecond)
}

func TestDockerHostThatNeverAnswers(t *testing.T) {
	clearDockerEnv(t)
	sock := filepath.Join(t.TempDir(), "d.sock")
	stop := silentServer(t, sock)
	defer stop()
	t.Setenv("DOCKER_HOST", "unix://"+sock)
	timedDetect(t, DockerAvailable, dockerPingTimeout-100*time.Millisecond, 2500*time.Millisecond)
}

func TestDockerDetectionHonoursContext(t *testing.T) {
	clearDockerEnv(t)
	sock := filepath.Join(t.TempDir(), "d.sock")
	stop := silentServer(t, sock)
	defer stop()
	t.Setenv("DOCKER_HOST", "unix://"+sock)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	err := DockerAvailable(ctx)
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
