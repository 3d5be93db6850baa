package conform

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// installLock is the file beside a package's node_modules that one npm ci
// at a time holds, across processes: two test packages, or a harness and
// its test, may install the same directory at once on a fresh clone, and
// npm ci starts by removing node_modules, the other's work included.
const installLock = ".idemchaos-npm.lock"

// lockInstall takes dir's install lock, waiting for another process's
// install to end; the returned func releases it.
func lockInstall(ctx context.Context, dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, installLock), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing the file releases the lock
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
