package main

import (
	"flag"
	"io"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/idemchaos/idemchaos/reports"
)

// termFlags are the flags of the commands that print for a person.
type termFlags struct {
	wide  bool
	color string
}

func (t *termFlags) register(fs *flag.FlagSet) {
	t.registerWide(fs)
	t.registerColor(fs)
}

// registerColor adds --color alone, for a command with one layout.
func (t *termFlags) registerColor(fs *flag.FlagSet) {
	fs.StringVar(&t.color, "color", "auto", "colour the verdicts: auto (on a terminal, unless NO_COLOR is set), always or never")
}

// registerWide adds --wide alone, for a command that prints no verdicts.
func (t *termFlags) registerWide(fs *flag.FlagSet) {
	t.color = "never"
	fs.BoolVar(&t.wide, "wide", false, "the full layout, however wide (default: compact when the full one does not fit $COLUMNS)")
}

// view is how stdout shows reports: as wide as $COLUMNS, else the
// terminal, else reports.DefaultWidth; in colour as --color and NO_COLOR
// say. kept is where every finding is kept ("" when nowhere).
func (t termFlags) view(stdout io.Writer, kept string) (reports.View, error) {
	tty, cols := terminal(stdout)
	v := reports.View{Width: reports.DefaultWidth, Wide: t.wide, Kept: kept}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		v.Width = n
	} else if cols > 0 {
		v.Width = cols
	}
	var err error
	v.Color, err = colorOn(t.color, tty, os.Getenv)
	return v, err
}

// colorOn reads --color: auto colours a terminal unless NO_COLOR is set
// (to anything) or TERM is dumb.
func colorOn(mode string, tty bool, getenv func(string) string) (bool, error) {
	switch mode {
	case "auto":
		return tty && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb", nil
	case "always":
		return true, nil
	case "never":
		return false, nil
	}
	return false, usageErrorf("--color %q: want auto, always or never", mode)
}

// terminal reports whether w is a terminal and, if it says, how wide.
func terminal(w io.Writer) (tty bool, cols int) {
	f, ok := w.(*os.File)
	if !ok {
		return false, 0
	}
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false, 0
	}
	if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil {
		return true, int(ws.Col)
	}
	return true, 0
}

// keptIn says where a run's findings are kept: its run directory, else
// its JSON file ("" when neither was asked for).
func keptIn(c common) string {
	switch {
	case c.out != "":
		return "in the run directory " + c.out
	case c.jsonFile != "" && c.jsonFile != "-":
		return "in " + c.jsonFile
	}
	return ""
}
