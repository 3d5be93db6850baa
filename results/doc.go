// Package results holds the records of a finished run and their JSON: the
// canonical document (results, summary, coverage, latencies, skipped
// scenarios, shards, the cases of an exploration with every order's
// records), the cells that group a run's seeds, a soak's tally and the
// bench and comparison documents. It sits below both the engine, which
// fills these records, and the renderers (reports), which read them: it
// runs nothing and links no store client or Toxiproxy. It is a stable
// API.
package results
