// Package strategytest is the conformance table of the built-in idempotency
// strategies (targets/strategy): every contract case is run against every
// strategy of design.Catalog(), by direct calls of Strategy.Handle, on a
// real Redis and a real Postgres started by provisiontest, and, for the
// strategies on InnoDB (targets/strategy/innodb, linked by the tests so
// that they register), on a real MariaDB database of the case's own with
// the InnoDB ledger (a missing server is a failure, never a skip; nothing
// is mocked).
//
// Each flawed strategy is expected to fail exactly the cases that show its
// known flaw (DESIGN.md section 2, docs/innodb.md) and to pass the rest;
// the correct ones (pg-tx, redis-pg-guard, innodb-tx) must pass every
// case. The expectations are data in the tests (expectations_test.go), so
// a strategy that stops showing its flaw, or a correct one that regresses,
// fails the table.
//
// It is a test-support package: it has no exported API and none of it is
// stable. Run it with
//
//	go test -race -count=1 -v ./targets/strategy/strategytest
//
// to see the case x strategy table it observed.
package strategytest
