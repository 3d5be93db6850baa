// Package conform runs idemchaos's conformance table: it builds the
// targets of package conformance (go build, npm ci from their lock
// files), starts each one on loopback the way a user starts a service (a
// ledger database of its own, its Postgres and Redis traffic through
// proxies of the session's Toxiproxy), and runs the scenarios against it
// exactly as against a user's service (engine.Service: --target-url,
// --ledger-url, --ledger-query, the failpoint protocol, the store proxies).
package conform
