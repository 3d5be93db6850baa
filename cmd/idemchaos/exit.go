package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Exit codes; scripts and CI jobs rely on them.
const (
	exitPass         = 0
	exitViolated     = 1
	exitUsage        = 2
	exitEnv          = 3
	exitInconclusive = 4
	exitInterrupted  = 130
)

// exitError carries an exit code; msg is printed when not empty.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, msg: fmt.Sprintf(format, args...)}
}

func envError(err error) error { return &exitError{code: exitEnv, msg: err.Error()} }

// verdictExit is a finished run whose verdict sets the exit code silently.
func verdictExit(code int) error {
	if code == exitPass {
		return nil
	}
	return &exitError{code: code}
}

// report prints err as one line and maps it to an exit code.
func report(ctx context.Context, err error, stderr io.Writer) int {
	if err == nil {
		return exitPass
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitPass
	}
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "idemchaos: interrupted; everything the harness started was stopped")
		return exitInterrupted
	}
	var e *exitError
	if !errors.As(err, &e) {
		e = &exitError{code: exitEnv, msg: err.Error()}
	}
	if e.msg != "" {
		fmt.Fprintln(stderr, "idemchaos: "+strings.ReplaceAll(e.msg, "\n", " "))
	}
	return e.code
}
