// Package reports renders finished results (package results): the terminal
// table, JUnit XML, Markdown and a self-contained HTML page, all from the
// canonical document; the bench, soak, demo and catalog texts. Renderers
// are downstream only: they never run anything, and they link no store
// client or Toxiproxy. It is a stable API.
package reports
