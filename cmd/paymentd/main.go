// Command paymentd serves the built-in payment API of idemchaos as a
// standalone server, with any of the idempotency strategies under test, so a
// trainer can curl it and an external idemchaos run can target it.
//
// It uses the Redis and Postgres given by URL, or provisions its own (local
// binaries, or a Docker engine) and stops them on exit. Run `paymentd -h`
// for the flags.
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
	// go-redis logs every failed dial on its own; paymentd answers 503 instead.
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

// run starts the server, serves until ctx is done and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stdout)
	if err != nil {
		return report(ctx, err, stderr)
	}
	err = serve(ctx, cfg, stderr)
	if err == nil {
		fmt.Fprintln(stderr, "paymentd: stopped")
	}
	return report(ctx, err, stderr)
}
