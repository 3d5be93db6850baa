package main

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

func TestFlagsRefuseWhatCannotRun(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--mistake", "rerender"}, "--dsn is required"},
		{[]string{"--dsn", "x", "--mistake", "typo"}, `--mistake "typo": want one of none, rerender, wait, short-claim, late, too-early`},
		{[]string{"--dsn", "x", "--port", "70000"}, "--port 70000"},
		{[]string{"--dsn", "x", "--late", "0s"}, "--late must be positive"},
		{[]string{"--dsn", "x", "--mistake", "short-claim", "--charge-time", "100ms", "--claim-ttl", "100ms"}, "needs --claim-ttl (100ms) under a positive --charge-time (100ms)"},
		{[]string{"--dsn", "x", "--mistake", "short-claim", "--charge-time", "0s"}, "under a positive --charge-time"},
		{[]string{"--dsn", "x", "extra"}, `unexpected argument "extra"`},
	} {
		_, err := parseFlags(tc.args, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

func TestFlagsClaimTTLDefault(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want time.Duration
	}{
		{[]string{"--dsn", "x", "--charge-time", "600ms"}, defaultClaimTTL},
		{[]string{"--dsn", "x", "--mistake", "short-claim", "--charge-time", "600ms"}, 300 * time.Millisecond},
		{[]string{"--dsn", "x", "--mistake", "short-claim", "--charge-time", "600ms", "--claim-ttl", "250ms"}, 250 * time.Millisecond},
	} {
		c, err := parseFlags(tc.args, io.Discard)
		if err != nil || c.claimTTL != tc.want {
			t.Errorf("%q: claim ttl %s (%v), want %s", tc.args, c.claimTTL, err, tc.want)
		}
	}
}

func TestHelpListsEveryMistake(t *testing.T) {
	var b strings.Builder
	if _, err := parseFlags([]string{"-h"}, &b); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	for _, m := range mistakes {
		if !strings.Contains(b.String(), "  "+string(m.name)+" ") {
			t.Errorf("-h does not list %s:\n%s", m.name, b.String())
		}
	}
}
