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
	"syscall"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"
)

func main() {
	// go-redis logs every failed dial; a cut store link is the point of some
	// scenarios, and the history records what happened.
	redis.SetLogger(&logging.VoidLogger{})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C now kills at once
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `idemchaos: chaos and simulation harness for the Idempotency-Key pattern

usage:
  idemchaos list                                   strategies, scenarios, profiles
  idemchaos run --strategy S --scenario C [--seed N] [--out DIR] [--json FILE]
  idemchaos run --target-url URL --ledger-url DSN --ledger-query SQL --scenario C
                                                   your own service (see README: testing your own service)
  idemchaos matrix [--strategies a,b] [--scenarios x,y] [--seeds N] [--shard K/N] [--out DIR] [--json FILE]
  idemchaos soak [--duration D] [--strategies a,b] [--scenarios x,y] [--seed N] [--shard K/N] [--out DIR] [--json FILE]
  idemchaos merge DIR... --out DIR                 join the run directories of shards 1/N..N/N into one
  idemchaos check DIR [--json FILE]                re-check a saved run offline
  idemchaos report DIR|FILE --format table|json|junit|markdown|html [-o FILE]
  idemchaos demo SCENARIO [--strategy S]           a forced interleaving, narrated for a room
  idemchaos bench [--strategies a,b] [--rate R | --concurrency C] [--duration D] [--dup-ratio P]

common flags: --redis-url, --postgres-url (else IDEMCHAOS_REDIS_URL, IDEMCHAOS_POSTGRES_URL;
              else a Docker engine; else local redis-server and postgres), --no-docker, --profile NAME|FILE,
              --scenario-file FILE (run, matrix: a scenario of your own, see examples/),
              --shard K/N (matrix, soak: this process's share of the run; idemchaos merge joins the shards)
exit codes: 0 pass (matrix: every cell as declared), 1 invariant violated (matrix: a cell not as
            declared), 2 usage or bad input, 3 environment error, 4 inconclusive, 130 interrupted
run 'idemchaos COMMAND -h' for a command's flags
`

// run dispatches a command and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
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
	case "bench":
		err = cmdBench(ctx, args[1:], stdout, stderr)
	case "conformance":
		err = cmdConformance(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitPass
	default:
		err = usageErrorf("unknown command %q (want list, run, matrix, soak, merge, check, report, demo, bench or conformance)", args[0])
	}
	return report(ctx, err, stderr)
}
