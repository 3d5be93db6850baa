// Command paysvc is a small payment service of the kind a team writes for
// itself, idempotency keys and all, with a switch for the mistakes such
// services make: it is what idemchaos tests "your own service" against
// (cmd/idemchaos/services_test.go), and a trainer's stand-in for one.
//
//	go run ./cmd/paysvc --dsn postgres://... --mistake rerender
//
// It serves POST /v1/charges on 127.0.0.1 (header Idempotency-Key, JSON body
// {"account","amount","currency"}) and writes one row per charge into a
// charges table it creates in the Postgres database --dsn names. Keys live
// in its memory (one process): a key is claimed for the charge, a duplicate
// sent while it is in flight gets 409 at once, another payload under the
// same key 422, a replay the stored answer byte for byte with
// Idempotent-Replayed: true, and a charge that fails (503) releases its key.
// --mistake breaks one of those promises (paysvc -h lists them);
// --commit-dsn writes the charges' rows through a second path to the
// database, one a store fault on --dsn's proxy never meets. It prints
// its base URL on stdout once it listens, and stops gracefully on SIGINT or
// SIGTERM, committing what it has answered first.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run serves until ctx is done and returns the exit code: 0 stopped, 1 a
// failure (the ledger unreachable, the port taken), 2 bad flags.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		fmt.Fprintln(stderr, "paysvc: "+err.Error())
		return 2
	}
	if err := serve(ctx, cfg, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "paysvc: "+err.Error())
		return 1
	}
	fmt.Fprintln(stderr, "paysvc: stopped")
	return 0
}
