package main

import (
	"fmt"
	"io"
	"os"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
)

// benchFiles are where a bench writes its figures; "-" is stdout, for one
// of them at most.
type benchFiles struct{ json, html, markdown string }

// toStdout reports whether one of the files is stdout.
func (f benchFiles) toStdout() bool { return f.json == "-" || f.html == "-" || f.markdown == "-" }

// writers pair each output flag with its file and renderer.
func (f benchFiles) writers() []benchWriter {
	return []benchWriter{{"--json", f.json, results.WriteBenchJSON}, {"--html", f.html, reports.WriteBenchHTML},
		{"--markdown", f.markdown, reports.WriteBenchMarkdown}}
}

type benchWriter struct {
	flag, path string
	render     func(io.Writer, results.Bench) error
}

// writeBench writes every file asked for, and the tables unless a file went
// to stdout; a file that cannot be written does not stop the others.
func writeBench(f benchFiles, rep results.Bench, stdout io.Writer) error {
	var first error
	for _, w := range f.writers() {
		if w.path == "" {
			continue
		}
		if err := writeBenchFile(w, rep, stdout); err != nil && first == nil {
			first = err
		}
	}
	if f.toStdout() {
		return first
	}
	if err := reports.WriteBenchTable(stdout, rep); err != nil && first == nil {
		first = err
	}
	return first
}

// writeBenchFile renders the document into one file, or stdout.
func writeBenchFile(w benchWriter, rep results.Bench, stdout io.Writer) error {
	if w.path == "-" {
		return w.render(stdout, rep)
	}
	f, err := os.Create(w.path)
	if err != nil {
		return usageErrorf("%s: %v", w.flag, err)
	}
	if err := w.render(f, rep); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", w.path, err)
	}
	return f.Close()
}
