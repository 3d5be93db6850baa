package main

import (
	"flag"
	"io"
	"strings"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results/rundir"
)

// cmdReport renders a saved run (its directory, or a --json file) or a
// saved bench (its --json file) in one format.
func cmdReport(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	format := fs.String("format", "table", reports.FormatList("(matrix results only)", false))
	outFile := fs.String("o", "", "write to FILE instead of stdout")
	var tf termFlags
	tf.register(fs)
	target, err := parseWithTarget(fs, args, "report DIR|FILE --format "+strings.Join(reports.FormatNames(), "|")+" [-o FILE]")
	if err != nil {
		return err
	}
	var screen io.Writer = stdout
	if *outFile != "" {
		screen = io.Discard // a file: plain text, the default width
	}
	view, err := tf.view(screen, "in "+target)
	if err != nil {
		return err
	}
	f, ok := reports.FormatNamed(*format)
	if !ok {
		return usageErrorf("report: --format %q: want %s", *format, reports.FormatList("", false))
	}
	render, err := loadRenderer(target, f, view)
	if err != nil {
		return err
	}
	if *outFile == "" {
		return render(stdout)
	}
	if err := rundir.WriteAtomic(*outFile, render); err != nil {
		return usageErrorf("report: %v", err)
	}
	return nil
}

// loadRenderer reads a saved document and binds it to the format's
// renderer for its kind of document.
func loadRenderer(target string, f reports.Format, view reports.View) (func(io.Writer) error, error) {
	saved, err := rundir.Load(target)
	if err != nil {
		return nil, usageErrorf("report: %v", err)
	}
	if saved.Bench != nil {
		if f.Bench == nil {
			return nil, usageErrorf("report: --format %s: %s is for matrix results; %s is a bench document (want %s)",
				f.Name, f.Name, saved.Path, reports.FormatList("", true))
		}
		return func(w io.Writer) error { return f.Bench(w, *saved.Bench) }, nil
	}
	if doc := saved.Run; len(doc.Explorations) > 0 && !f.Explores && !(f.ExploresAlone && len(doc.Results) == 0) {
		return nil, usageErrorf("report: --format %s does not show an exploration, and %s holds one: want %s",
			f.Name, saved.Path, reports.ExploreFormats(len(doc.Results) == 0))
	}
	return func(w io.Writer) error { return f.Run(w, *saved.Run, view) }, nil
}
