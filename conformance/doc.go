// Package conformance is the catalog of idemchaos's conformance run: the
// idempotency libraries teams install, each wrapped around the payment
// API's charge as its documentation sets it up (the targets in the
// directories beside this file), and the built-in reference strategies;
// what each library promises, with the file and function that says so;
// how each anomaly the checker finds in them is explained by the library's
// own code; and the table of the run (CONFORMANCE.md), which separates a
// documented deviation from the IETF draft ("deviates") from a loss of
// money ("breaks money").
//
// It is pure, and sits below the engine: the engine (engine/conform) reads
// the catalog to build and start the targets, reports.WriteConformance
// renders the table, and the command (idemchaos conformance) drives both.
package conformance
