package services

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/e2e/services/internal/shop"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/targets/provision"
)

// atFloor stops a race-hunting scenario at its power floor: for the tests
// about something else than a race, which a hunt to the power aim only
// slows (power_test.go hunts with the defaults).
func atFloor(more ...string) []string {
	return append([]string{"--power-aim", strconv.Itoa(scenarios.DefaultPowerTarget)}, more...)
}

// seeds is how many seeds each judged run covers: IDEMCHAOS_SERVICE_SEEDS
// (the long form, make test-services-long: 20), else 1 (make test).
func seeds(t *testing.T) int {
	t.Helper()
	n := 1
	if v := os.Getenv("IDEMCHAOS_SERVICE_SEEDS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > 100 {
			t.Fatalf("IDEMCHAOS_SERVICE_SEEDS=%q: want 1 to 100", v)
		}
	}
	return n
}

// service is a started service process, and where its ledger is read.
type service struct {
	name, url              string
	ledgerURL, ledgerQuery string
}

// start starts the named service on a new Postgres database (and the
// shared Redis) with args, and stops it when the test ends.
func start(t *testing.T, name string, args ...string) service {
	t.Helper()
	ctx := context.Background()
	dsn, err := stores.CreateDatabase(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stores.DropDatabase(context.Background(), dsn) })
	return run(t, name, dsn, dsn, shop.LedgerQuery, args...)
}

// startMySQL starts the named service on a new MariaDB database with
// args: the service is given the Go driver's DSN, as a team configures
// it, and idemchaos the mysql:// URL.
func startMySQL(t *testing.T, name string, args ...string) service {
	t.Helper()
	ctx := context.Background()
	url, err := stores.CreateMySQLDatabase(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stores.DropMySQLDatabase(context.Background(), url) })
	dsn, err := provision.MySQLDSN(url)
	if err != nil {
		t.Fatal(err)
	}
	return run(t, name, dsn, url, shop.MySQLLedgerQuery, args...)
}

// run starts the named service on its database dsn with args, its ledger
// read at ledgerURL with query, and stops it when the test ends.
func run(t *testing.T, name, dsn, ledgerURL, query string, args ...string) service {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, name), append([]string{"--dsn", dsn, "--redis", stores.RedisURL}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls, exited := make(chan string, 1), make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			urls <- sc.Text()
		}
		_, _ = io.Copy(io.Discard, stdout)
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("%s did not stop within 30s of SIGTERM", name)
		}
		if t.Failed() {
			t.Logf("%s stderr:\n%s", name, stderr.String())
		}
	})
	select {
	case u := <-urls:
		return service{name: name, url: u, ledgerURL: ledgerURL, ledgerQuery: query}
	case err := <-exited:
		t.Fatalf("%s exited before it listened: %v\n%s", name, err, stderr.String())
	case <-time.After(time.Minute):
		t.Fatalf("%s did not listen within 1m", name)
	}
	return service{}
}

// verdicts is a judged run: its exit code, its document and its stderr.
type verdicts struct {
	code   int
	doc    results.Document
	stderr string
	seeds  int
}

// judge runs idemchaos matrix against s on the scenarios given
// (comma-separated), seeds 1..n, the JSON document on stdout.
func (s service) judge(t *testing.T, scenarios string, n int, extra ...string) verdicts {
	t.Helper()
	if dir := os.Getenv("IDEMCHAOS_SERVICE_OUT"); dir != "" { // keep the run, to look at it
		extra = append(extra, "--out", filepath.Join(dir, s.name+"-"+strconv.FormatInt(time.Now().UnixNano(), 36)))
	}
	args := append([]string{"matrix", "--quiet", "--target-url", s.url, "--ledger-url", s.ledgerURL, "--ledger-query", s.ledgerQuery,
		"--target-name", s.name, "--scenarios", scenarios, "--seed", "1", "--seeds", strconv.Itoa(n), "--json", "-"}, extra...)
	cmd := exec.Command(filepath.Join(bin, "idemchaos"), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	v := verdicts{seeds: n}
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		v.code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	v.stderr = stderr.String()
	if err := json.Unmarshal(stdout.Bytes(), &v.doc); err != nil {
		t.Fatalf("idemchaos %s: exit %d, no JSON document (%v)\n%s", strings.Join(args, " "), v.code, err, v.stderr)
	}
	t.Logf("%s: exit %d\n%s", s.name, v.code, v.summary())
	return v
}

// summary is a line per result.
func (v verdicts) summary() string {
	var b strings.Builder
	for _, r := range v.doc.Results {
		fmt.Fprintf(&b, "  %s seed %d: %s %v", r.Scenario, r.Seed, r.Verdict, nonZero(r.Anomalies))
		if r.Power != nil {
			fmt.Fprintf(&b, " (%d overlaps in %d rounds, %d ms)", r.Power.Overlaps, r.Power.Rounds, r.DurationMS)
		}
		if h := r.Holds; h != nil {
			fmt.Fprintf(&b, " (holds: %d held, %d refused, %d failed, %d undecided of %d)", h.Held, h.Refused, h.Failed, h.Undecided, h.Pairs)
		}
		if r.Error != "" || len(r.Assumptions) > 0 {
			fmt.Fprintf(&b, " %q %q", r.Error, r.Assumptions)
		}
		b.WriteString("\n")
	}
	for _, s := range v.doc.Skipped {
		fmt.Fprintf(&b, "  %s skipped: %s\n", s.Scenario, s.Reason)
	}
	return b.String()
}

func nonZero[K comparable](m map[K]int) map[K]int {
	out := map[K]int{}
	for k, n := range m {
		if n > 0 {
			out[k] = n
		}
	}
	return out
}

// expect fails unless scenario ran on every seed with verdict and, when
// anomaly is given, showed it (and no anomaly but it and also).
func (v verdicts) expect(t *testing.T, scenario, verdict, anomaly string, also ...string) {
	t.Helper()
	n := 0
	for _, r := range v.doc.Results {
		if r.Scenario != scenario {
			continue
		}
		n++
		var others []string
		for a, k := range r.Anomalies {
			if k > 0 && string(a) != anomaly && !slices.Contains(also, string(a)) {
				others = append(others, string(a))
			}
		}
		switch {
		case string(r.Verdict) != verdict:
			t.Errorf("%s seed %d: %s with %v, error %q, assumptions %q; want %s", scenario, r.Seed, r.Verdict, nonZero(r.Anomalies),
				r.Error, r.Assumptions, verdict)
		case anomaly != "" && r.Anomalies[check.Anomaly(anomaly)] == 0:
			t.Errorf("%s seed %d: %s without %s (%v)", scenario, r.Seed, r.Verdict, anomaly, nonZero(r.Anomalies))
		case len(others) > 0:
			t.Errorf("%s seed %d: anomalies %q besides %q %q", scenario, r.Seed, others, anomaly, also)
		}
	}
	if n != v.seeds {
		t.Errorf("%s ran on %d seeds, want %d\n%s", scenario, n, v.seeds, v.stderr)
	}
}
