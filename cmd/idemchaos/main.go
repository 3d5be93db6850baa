// Command idemchaos is the chaos and simulation harness for the
// Idempotency-Key pattern: it runs payment-API targets with different
// idempotency storage strategies under duplicate retries and faults, then
// checks ledger invariants. Run `idemchaos help` for the commands.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"
)

func main() {
	// go-redis logs every failed dial; a cut store link is the point of some
	// scenarios, and the history records what happened.
	redis.SetLogger(&logging.VoidLogger{})
	ctx, cancel := context.WithCancel(context.Background())
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-signals
		// the signals go back to the runtime's default before the clean-up
		// begins, so a second Ctrl-C kills at once however busy the
		// process is (releasing them after the cancel raced the clean-up)
		signal.Stop(signals)
		cancel()
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	signal.Stop(signals)
	cancel()
	os.Exit(code)
}

// run dispatches a command and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, mainUsage())
		return exitUsage
	}
	var err error
	switch args[0] {
	case "list":
		err = cmdList(args[1:], stdout)
	case "run":
		err = cmdRun(ctx, args[1:], stdout, stderr)
	case "matrix":
		err = cmdMatrix(ctx, args[1:], stdout, stderr)
	case "soak":
		err = cmdSoak(ctx, args[1:], stdout, stderr)
	case "merge":
		err = cmdMerge(args[1:], stdout, stderr)
	case "check":
		err = cmdCheck(args[1:], stdout, stderr)
	case "report":
		err = cmdReport(args[1:], stdout)
	case "demo":
		err = cmdDemo(ctx, args[1:], stdout, stderr)
	case "shrink":
		err = cmdShrink(ctx, args[1:], stdout, stderr)
	case "explore":
		err = cmdExplore(ctx, args[1:], stdout, stderr)
	case "bench":
		err = cmdBench(ctx, args[1:], stdout, stderr)
	case "lint":
		err = cmdLint(args[1:], stdout)
	case "client":
		err = cmdClient(ctx, args[1:], stdout, stderr)
	case "conformance":
		if isClientConformance(args[1:]) {
			err = cmdClientConformance(ctx, args[1:], stdout, stderr)
			break
		}
		err = cmdConformance(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, mainUsage())
		return exitPass
	default:
		err = usageErrorf("unknown command %q (%swant %s; idemchaos help lists them)", args[0], didYouMean(args[0], commandNames()),
			strings.Join(commandNames(), ", "))
	}
	return report(ctx, err, stderr)
}
