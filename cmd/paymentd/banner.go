package main

import (
	"cmp"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/idemchaos/idemchaos/targets/failpoint/remote"
	"github.com/idemchaos/idemchaos/targets/provision"
)

// readyLine is the last line paymentd prints at start: requests are served.
const readyLine = "paymentd: ready"

// announce prints what paymentd serves, with which stores, where an
// external run finds its ledger and how it funds an account, and finally
// the ready marker.
func announce(w io.Writer, c config, s *stores, addr string) {
	base := "http://" + addr
	fmt.Fprintf(w, "paymentd: strategy %s on %s (%s)\n", c.strategy, base, s.describe())
	if !isLoopback(addr) {
		fmt.Fprintf(w, "paymentd: warning: %s is not a loopback address: anyone who can reach it can charge these accounts\n", addr)
	}
	fmt.Fprintf(w, "paymentd: profile %s, claim ttl %v, key ttl %v, accounts %s (%s)\n",
		c.profile.Name, c.claimTTL, c.keyTTL, accountList(c.accounts), c.currency)
	if c.failpoints {
		fmt.Fprintf(w, "paymentd: failpoints: on: requests carrying %s report every named point to the harness (docs/failpoints.md); give idemchaos --failpoints\n",
			remote.Header)
	}
	fmt.Fprintf(w, "paymentd: ledger: --ledger-url '%s' --ledger-query '%s'\n", redactURL(s.ledgerURL()), ledgerQuery)
	fmt.Fprintf(w, "paymentd: top-up: --topup-path '%s'\n", topUpPath)
	fmt.Fprintln(w, readyLine)
}

// describe names the stores the strategy uses, their secrets redacted.
func (s *stores) describe() string {
	if s.mysqlURL != "" {
		return "mysql: " + redactURL(s.mysqlURL)
	}
	return fmt.Sprintf("postgres: %s, redis: %s", redactURL(s.postgresDSN), redactURL(s.services.RedisURL))
}

// ledgerURL is where the ledger lives: the Postgres DSN, or the MariaDB
// URL of the InnoDB ledger (the same charge_rows view: ledgerQuery reads
// both).
func (s *stores) ledgerURL() string { return cmp.Or(s.mysqlURL, s.postgresDSN) }

// isLoopback reports whether a listener's host:port is on a loopback address.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redactURL hides the secrets of a URL or DSN (the userinfo password, a
// password or sslpassword parameter) with provision.Redact: a ledger DSN
// without a password is printed as it is, ready to use.
func redactURL(raw string) string { return provision.Redact(raw) }

func accountList(accounts []account) string {
	parts := make([]string, len(accounts))
	for i, a := range accounts {
		parts[i] = fmt.Sprintf("%s=%d", a.id, a.opening)
	}
	return strings.Join(parts, ",")
}
