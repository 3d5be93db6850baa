package conform

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/idemchaos/idemchaos/conformance"
)

// Builds makes what the targets run, once each: the Go programs and
// paymentd built into Work, the Node targets' dependencies installed by
// npm ci from their lock files. Source is the repository root.
type Builds struct {
	Source, Work string
	Log          io.Writer

	mu   sync.Mutex
	done map[string]error
}

// Program says how to start one process of target t: the command and its
// arguments, before the per-process ones (listen address, stores).
func (b *Builds) Program(ctx context.Context, t conformance.Target) (string, []string, error) {
	switch t.Kind {
	case conformance.Paymentd:
		bin := filepath.Join(b.Work, "paymentd")
		return bin, t.Args, b.once(t.Name, "paymentd", func() error {
			return b.run(ctx, b.Source, "go", "build", "-o", bin, "./cmd/paymentd")
		})
	case conformance.Go:
		bin := filepath.Join(b.Work, filepath.Base(t.Dir))
		return bin, t.Args, b.once(t.Name, t.Dir, func() error {
			return b.run(ctx, filepath.Join(b.Source, t.Dir), "go", "build", "-o", bin, ".")
		})
	case conformance.Node:
		dir := filepath.Join(b.Source, t.Dir)
		node, err := exec.LookPath("node")
		if err != nil {
			return "", nil, fmt.Errorf("target %s needs Node.js: %w (install nodejs and npm: scripts/setup)", t.Name, err)
		}
		return node, append([]string{filepath.Join(dir, "server.js")}, t.Args...), b.once(t.Name, t.Dir, func() error { return b.npmCI(ctx, dir) })
	}
	return "", nil, fmt.Errorf("target %s: unknown kind %q", t.Name, t.Kind)
}

// once runs build the first time what is asked for, and returns its
// error every time.
func (b *Builds) once(target, what string, build func() error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done == nil {
		b.done = map[string]error{}
	}
	if err, ok := b.done[what]; ok {
		return err
	}
	err := build()
	if err != nil {
		err = fmt.Errorf("target %s: building %s: %w", target, what, err)
	}
	b.done[what] = err
	return err
}

// installedMark records, in node_modules, the lock file npm ci installed.
const installedMark = ".idemchaos-installed"

// npmCI installs dir's dependencies from its package-lock.json, unless the
// same lock file was installed there already; one process at a time.
func (b *Builds) npmCI(ctx context.Context, dir string) error {
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return err
	}
	unlock, err := lockInstall(ctx, dir)
	if err != nil {
		return err
	}
	defer unlock()
	sum := sha256.Sum256(lock)
	want := hex.EncodeToString(sum[:])
	mark := filepath.Join(dir, "node_modules", installedMark)
	if got, err := os.ReadFile(mark); err == nil && string(got) == want {
		return nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return fmt.Errorf("npm: %w (install nodejs and npm: scripts/setup)", err)
	}
	if err := b.run(ctx, dir, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"); err != nil {
		return err
	}
	return os.WriteFile(mark, []byte(want), 0o644)
}

// run runs a build command in dir; its output is shown only if it fails.
func (b *Builds) run(ctx context.Context, dir, name string, args ...string) error {
	if b.Log != nil {
		fmt.Fprintf(b.Log, "conformance: %s %s (in %s)\n", name, joinArgs(args), dir)
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		tail := out.Bytes()
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return errors.Join(err, fmt.Errorf("%s", bytes.TrimSpace(tail)))
	}
	return nil
}

func joinArgs(args []string) string {
	var b bytes.Buffer
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a)
	}
	return b.String()
}
