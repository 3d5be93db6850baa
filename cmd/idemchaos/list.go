package main

import (
	"flag"
	"io"

	"github.com/idemchaos/idemchaos/reports"
)

func cmdList(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	var tf termFlags
	tf.registerWide(fs)
	markdown := fs.Bool("markdown", false, "write the catalog as Markdown tables, as docs/catalog.md holds it")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *markdown {
		return reports.WriteCatalogMarkdown(stdout)
	}
	view, err := tf.view(stdout, "")
	if err != nil {
		return err
	}
	return reports.WriteCatalog(stdout, view)
}
