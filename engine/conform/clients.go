package conform

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/idemchaos/idemchaos/conformance"
	"github.com/idemchaos/idemchaos/engine/clientmode"
	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/provision"
)

// ClientProgram builds client c's driver (once) and says how to run it:
// a Go driver is built into Work from its package in its module, a Node
// driver's dependencies are installed by npm ci from its lock file.
func (b *Builds) ClientProgram(ctx context.Context, c conformance.Client) ([]string, error) {
	dir := filepath.Join(b.Source, c.Dir)
	switch c.Kind {
	case conformance.Go:
		bin := filepath.Join(b.Work, "client-"+c.Name)
		return []string{bin}, b.once(c.Name, c.Dir+" "+c.Main, func() error {
			return b.run(ctx, dir, "go", "build", "-o", bin, c.Main)
		})
	case conformance.Node:
		node, err := exec.LookPath("node")
		if err != nil {
			return nil, fmt.Errorf("client %s needs Node.js: %w (install nodejs and npm: scripts/setup)", c.Name, err)
		}
		return []string{node, filepath.Join(dir, c.Main)}, b.once(c.Name, c.Dir, func() error { return b.npmCI(ctx, dir) })
	}
	return nil, fmt.Errorf("client %s: unknown kind %q", c.Name, c.Kind)
}

// Clients is what a client conformance run runs: every client on every
// seed, through client mode.
type Clients struct {
	Clients []conformance.Client
	Seeds   []uint64
	// Parallel is how many clients run at once (1 to 4); a client's seeds
	// run one after another.
	Parallel int
	// Out is the run directory ("": none): each seed's run is saved as
	// `idemchaos client --out` saves it.
	Out string
	// Environ is the drivers' environment (the harness's own, as the
	// command line passes it), before client mode's variables.
	Environ []string
	// Log gets the progress lines.
	Log io.Writer
}

// RunClients builds and runs every client of p on every seed against the
// API client mode serves on services, and returns the records, client by
// client, seed by seed. An error is the environment's (a driver that
// would not build or start, a store that failed).
func RunClients(ctx context.Context, services *provision.Services, builds *Builds, p Clients) ([]scenarios.ClientRecord, error) {
	if p.Parallel < 1 || p.Parallel > 4 {
		return nil, fmt.Errorf("parallel %d: want 1 to 4", p.Parallel)
	}
	log := &syncWriter{w: p.Log}
	byClient := make([][]scenarios.ClientRecord, len(p.Clients))
	errs := make([]error, len(p.Clients))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	slots := make(chan struct{}, p.Parallel)
	var wg sync.WaitGroup
	for i, c := range p.Clients {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			if ctx.Err() != nil {
				return
			}
			byClient[i], errs[i] = runClient(ctx, services, builds, p, c, log)
			if errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return slices.Concat(byClient...), nil
}

// runClient runs one client on every seed, saving each run in p.Out.
func runClient(ctx context.Context, services *provision.Services, builds *Builds, p Clients, c conformance.Client, log io.Writer) ([]scenarios.ClientRecord, error) {
	command, err := builds.ClientProgram(ctx, c)
	if err != nil {
		return nil, err
	}
	shape, err := api.ShapeNamed(c.Shape)
	if err != nil {
		return nil, fmt.Errorf("client %s: %w", c.Name, err)
	}
	var out []scenarios.ClientRecord
	for _, seed := range p.Seeds {
		cfg := clientmode.Config{Command: command, Dir: filepath.Join(builds.Source, c.Dir), Environ: p.Environ, Name: c.Name,
			Shape: shape, Seed: seed, Services: services, Log: io.Discard, Output: io.Discard}
		rec, err := clientmode.Run(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("client %s, seed %d: %w", c.Name, seed, err)
		}
		rec.Command = c.Command() // the repro names what a person runs, not the build's temporary binary
		res := scenarios.JudgeClient(rec)
		fmt.Fprintf(log, "client %s, seed %d: %s (%d requests, %s, %s)\n", c.Name, seed, res.Verdict, res.Requests,
			res.FaultsSaid(), rec.Duration.Round(100*time.Millisecond))
		if p.Out != "" {
			if err := rundir.WriteClient(rundir.ClientDir(p.Out, c.Name, c.Shape, seed), rec, res); err != nil {
				return nil, err
			}
		}
		out = append(out, rec)
	}
	return out, nil
}

// syncWriter serialises the lines of clients run side by side.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	if s.w == nil {
		return len(b), nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}
