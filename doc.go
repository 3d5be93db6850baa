// Package idemchaos is a chaos and simulation test harness for the
// Idempotency-Key pattern: it runs a payment API over real Redis and
// Postgres behind Toxiproxy, fires the traffic that breaks idempotency
// layers (concurrent duplicate retries, responses dropped after the commit,
// changed payloads, missing keys) and checks the ledger for double charges,
// lost acknowledgements and contract violations.
//
// The packages, in the order data flows through them (scenario -> plan ->
// clients -> targets -> stores; then history + ledger -> checker -> results
// -> renderers):
//
//   - cmd/: the idemchaos CLI, paymentd, the payment server, and paysvc,
//     a user's kind of payment service with a switch for its mistakes.
//   - scenariotest and clienttest: the go test API, an entry point as the
//     commands are (a team's tests drive the engine through it).
//   - targets/: the system under test: targets/api (the harness-target
//     contract), targets/strategy (the idempotency strategies) and
//     targets/strategy/design (their pure design catalog), targets/ledger,
//     targets/failpoint, targets/server and targets/provision (finding or
//     starting the stores).
//   - sim/: the simulated world: sim/workload (plans), sim/client (the
//     recording client), sim/fault (Toxiproxy faults), sim/load and
//     sim/history.
//   - scenarios/: the pure core: the catalog, plans, expectations,
//     Cell/Record/Result and Judge; with scenarios/check (the checker),
//     scenarios/spec (the file language), scenarios/openapi (a service's
//     OpenAPI description: its charge request and contract),
//     and scenarios/narrate.
//   - engine/: all the I/O: deployment, a user's service, the pipeline,
//     pool, sessions, soak and bench; engine/conform (the conformance run),
//     engine/compare (bench --compare) and engine/shrink.
//   - results/: the run's records and their JSON (the document, cells,
//     latencies, skips, the soak tally, bench and comparison documents),
//     below both the engine and the renderers; results/rundir saves and
//     reads run directories.
//   - reports/: the renderers only.
//   - conformance/: the conformance catalog (idempotency libraries, their
//     promises and findings) and its table; the targets' sources beside
//     it; engine/conform starts them.
//   - internal/: not a stable API.
//
// The root package holds no code; its test enforces the layering above.
package idemchaos
