package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Exit codes, as the idemchaos CLI uses them.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitEnv         = 3
	exitInterrupted = 130
)

// exitError carries an exit code and a one-line message.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, msg: fmt.Sprintf(format, args...)}
}

func envError(err error) error { return &exitError{code: exitEnv, msg: err.Error()} }

// report prints err on one line and maps it to an exit code. A signal that
// arrives before the server is ready is an interruption (130); once serving,
// a signal is the normal way to stop and serve returns nil.
func report(ctx context.Context, err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "paymentd: interrupted; everything it started was stopped")
		return exitInterrupted
	}
	var e *exitError
	if !errors.As(err, &e) {
		e = &exitError{code: exitFailure, msg: err.Error()}
	}
	fmt.Fprintln(stderr, "paymentd: "+oneLine(e.msg))
	return e.code
}

// oneLine flattens a message onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " | ")), " ")
}
