package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
)

// TestAccountsKeptUnlessReset: a restart keeps the ledger and opens only the
// accounts that are absent; --reset starts it afresh. On Postgres, and on
// MariaDB for a strategy on InnoDB.
func TestAccountsKeptUnlessReset(t *testing.T) {
	for _, strategy := range []string{"pg-tx", "innodb-tx"} {
		t.Run(strategy, func(t *testing.T) { accountsKeptUnlessReset(t, strategy) })
	}
}

func accountsKeptUnlessReset(t *testing.T, strategy string) {
	stores, _ := storeArgs(t, strategy)
	args := append(stores, "--strategy", strategy, "--listen", "127.0.0.1:0", "--accounts", "acct-1=5000,vip=7")
	d := startDaemon(t, nil, args...)
	if r := do(t, "POST", d.url+api.PathCharges, "reset-1", charge1250); r.status != http.StatusCreated {
		t.Fatalf("charge: %d %s", r.status, r.body)
	}
	stop(t, d)
	for _, tc := range []struct {
		extra []string
		want  int64
	}{{nil, 5000 - 1250}, {[]string{"--reset"}, 5000}} {
		d := startDaemon(t, nil, append(args, tc.extra...)...)
		if got := balance(t, d.url, "acct-1"); got != tc.want {
			t.Errorf("restart %v: acct-1 balance %d; want %d", tc.extra, got, tc.want)
		}
		if got := balance(t, d.url, "vip"); got != 7 {
			t.Errorf("restart %v: vip balance %d; want 7", tc.extra, got)
		}
		stop(t, d)
	}
}

func balance(t *testing.T, base, id string) int64 {
	t.Helper()
	r := do(t, "GET", base+api.PathAccounts+id, "", "")
	if r.status != http.StatusOK {
		t.Fatalf("GET account %s: %d %s", id, r.status, r.body)
	}
	return decode[api.Account](t, r).Balance
}

func stop(t *testing.T, d *daemon) {
	t.Helper()
	if code, _ := d.interrupt(t, 30*time.Second); code != 0 {
		t.Fatalf("exit %d after SIGINT:\n%s", code, d.output())
	}
}
