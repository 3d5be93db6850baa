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
	if err := parse(fs, args); err != nil {
		return err
	}
	view, err := tf.view(stdout, "")
	if err != nil {
		return err
	}
	return reports.WriteCatalog(stdout, view)
}
