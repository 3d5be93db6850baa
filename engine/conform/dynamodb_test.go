package conform

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/conformance"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/provision"
)

// dynaliteHarnessArg starts the test binary as a harness that starts the
// run's dynalite (dynaliteHarness).
const dynaliteHarnessArg = "conform-dynalite-harness"

// repoRoot is the repository, where conformance/dynalite pins dynalite.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestDeployDynamoDBRow: a row that keeps its records in DynamoDB gets a
// table of its own on the run's dynalite, with the partition key its
// catalog entry names, and reaches it only through a proxy of its own,
// which the service a run is given names as its DynamoDB proxy. Closing
// the row deletes the proxy; closing the run stops dynalite and removes
// its data dir.
func TestDeployDynamoDBRow(t *testing.T) {
	t.Parallel()
	mark := newMark()
	killLeftovers(t, mark)
	b := fakeBuilds(t)
	b.Source = repoRoot(t)
	e := newEnv(t, b)
	target := conformance.Target{Name: "fake", Kind: conformance.Go, Dir: fakeDir, Args: []string{fakeTargetArg, "--mark", mark},
		DynamoDB: &conformance.DynamoDBTable{Key: "id"}, Replicas: 1, ClaimTimeout: time.Second}
	ctx := context.Background()
	d, err := deploy(ctx, e, Row{Target: target, Profile: api.IETF})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			_ = d.close(ctx, e)
		}
	}()
	args := argsOf(t, d.ext.URLs[0])
	endpoint, table := flagOf(args, "dynamodb-endpoint"), flagOf(args, "dynamodb-table")
	if got := hostOf(t, endpoint); got != d.dynamo.Listen {
		t.Errorf("the target reaches DynamoDB at %s; want the row's proxy, %s", got, d.dynamo.Listen)
	}
	if want := "conf-fake.ietf-dynamodb-" + e.runID; d.ext.DynamoDBProxy != want {
		t.Errorf("the service's DynamoDB proxy is %q; want %q", d.ext.DynamoDBProxy, want)
	}
	var desc struct {
		Table struct {
			TableStatus string
			KeySchema   []struct{ AttributeName, KeyType string }
		}
	}
	if err := provision.DynamoDBCall(context.Background(), endpoint, "DescribeTable", map[string]string{"TableName": table}, &desc); err != nil {
		t.Fatalf("the row's table %q through its proxy: %v", table, err)
	}
	if ks := desc.Table.KeySchema; desc.Table.TableStatus != "ACTIVE" || len(ks) != 1 || ks[0].AttributeName != "id" || ks[0].KeyType != "HASH" {
		t.Errorf("table %q: %+v; want ACTIVE, partition key id", table, desc.Table)
	}
	if err := d.dynamo.Cut(); err != nil {
		t.Fatal(err)
	}
	if err := provision.DynamoDBCall(context.Background(), endpoint, "DescribeTable", map[string]string{"TableName": table}, nil); err == nil {
		t.Errorf("the DynamoDB proxy cut: dynalite still answers through it")
	}
	closed = true
	if err := d.close(ctx, e); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Session.Toxi.Existing(d.ext.DynamoDBProxy); err == nil {
		t.Errorf("proxy %s left after close", d.ext.DynamoDBProxy)
	}
	dir := e.dynamo.d.Dir
	if len(running(dir)) != 1 {
		t.Fatalf("dynalite with its data in %s: %q running; want one process", dir, running(dir))
	}
	if err := e.dynamo.close(); err != nil {
		t.Fatal(err)
	}
	noneRunning(t, dir)
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("dynalite's data dir %s left after the run: %v", dir, err)
	}
}

// TestDynaliteDiesWithItsHarness: a harness killed with SIGKILL takes its
// dynalite with it (a parent-death signal), and the next start-up's sweep
// removes the data dir it left.
func TestDynaliteDiesWithItsHarness(t *testing.T) {
	t.Parallel()
	h := exec.Command(self(t), dynaliteHarnessArg, repoRoot(t))
	out, err := h.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	dir, ok := strings.CutPrefix(strings.TrimSpace(line), "harness: dynalite in ")
	if !ok {
		_ = h.Process.Kill()
		_ = h.Wait()
		t.Fatalf("the harness said %q", line)
	}
	killLeftovers(t, dir)
	_ = h.Process.Signal(syscall.SIGKILL)
	_ = h.Wait()
	if !await(10*time.Second, func() bool { return len(running(dir)) == 0 }) {
		t.Fatalf("the harness was killed; its dynalite still runs 10 s later: %q", running(dir))
	}
	// a process whose command line is gone may still be exiting: the
	// sweep leaves its dir until it has (a zombie, or gone)
	var swept error
	if !await(10*time.Second, func() bool {
		_, swept = provision.Sweep(filepath.Dir(dir))
		_, err := os.Stat(dir)
		return swept != nil || os.IsNotExist(err)
	}) || swept != nil {
		t.Errorf("the sweep left %s, the data dir of a killed run's dynalite, 10 s after it was killed (%v)", dir, swept)
	}
}

// dynaliteHarness starts the run's dynalite from the repository at
// args[0], says where its data is, then waits to be killed.
func dynaliteHarness(args []string) int {
	s := &dynamoDB{}
	d, err := s.get(context.Background(), &Builds{Source: args[0]})
	if err != nil {
		fmt.Println("harness:", err)
		return 1
	}
	fmt.Println("harness: dynalite in", d.Dir)
	time.Sleep(time.Minute) // killed long before
	return 1
}
