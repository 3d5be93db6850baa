package reports

import (
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/idemchaos/idemchaos/results"
)

// Format is one output format of a saved document: how it renders a run
// document and, where it can, a bench document.
type Format struct {
	Name string
	// Run renders a run (or matrix, check, merge) document as v lays it
	// out.
	Run func(w io.Writer, doc results.Document, v View) error
	// Bench renders a bench document; nil where the format has nothing to
	// say of one (JUnit: a bench has no verdicts).
	Bench func(w io.Writer, doc results.Bench) error
	// Explores says Run renders a document's explorations too;
	// ExploresAlone, only a document that holds nothing else (the HTML
	// page draws a run or an exploration, not both).
	Explores, ExploresAlone bool
}

// writeRunTable writes a run document's cells as the table, then its
// explorations as explore does; an exploration alone has no table.
func writeRunTable(w io.Writer, d results.Document, v View) error {
	if len(d.Results) > 0 || len(d.Explorations) == 0 {
		if err := WriteTable(w, d.Results, v); err != nil || len(d.Explorations) == 0 {
			return err
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	return WriteExplorations(w, d.Explorations, v)
}

// WriteRunHTML writes a document's HTML page: its run's report, or the
// page of its explorations when it holds nothing else (an exploration
// saved by explore --out, or their merged shards). A document that holds
// both is refused: a page of one would leave the other's verdict out.
func WriteRunHTML(w io.Writer, d results.Document) error {
	switch {
	case len(d.Explorations) == 0:
		return WriteHTML(w, d)
	case len(d.Results) == 0:
		return WriteExploreHTML(w, d.Explorations, d.Explorations[0].Args)
	}
	return errors.New("html: the document holds a run and an exploration; a page draws one of them")
}

// formats is the registry, in the order help texts list them.
var formats = []Format{
	{Name: "table", Run: writeRunTable, Bench: WriteBenchTable, Explores: true},
	{Name: "json", Run: func(w io.Writer, d results.Document, _ View) error { return results.WriteJSON(w, d) },
		Bench: results.WriteBenchJSON, Explores: true},
	{Name: "junit", Run: func(w io.Writer, d results.Document, _ View) error { return WriteJUnit(w, d) }},
	{Name: "markdown", Run: func(w io.Writer, d results.Document, _ View) error { return WriteMarkdown(w, d) },
		Bench: WriteBenchMarkdown},
	{Name: "html", Run: func(w io.Writer, d results.Document, _ View) error { return WriteRunHTML(w, d) },
		Bench: WriteBenchHTML, ExploresAlone: true},
}

// Formats lists every format, in help order.
func Formats() []Format { return slices.Clone(formats) }

// FormatNamed finds a format by name.
func FormatNamed(name string) (Format, bool) {
	i := slices.IndexFunc(formats, func(f Format) bool { return f.Name == name })
	if i < 0 {
		return Format{}, false
	}
	return formats[i], true
}

// FormatNames names every format, in help order.
func FormatNames() []string {
	out := make([]string, len(formats))
	for i, f := range formats {
		out[i] = f.Name
	}
	return out
}

// FormatList names the formats as a help text does: "table, json, junit,
// markdown or html"; with note, each format that renders no bench
// document is followed by it ("junit (matrix results only)"). bench
// lists only the formats of bench documents.
func FormatList(note string, bench bool) string {
	var names []string
	for _, f := range formats {
		switch {
		case bench && f.Bench == nil:
			continue
		case note != "" && f.Bench == nil:
			names = append(names, f.Name+" "+note)
		default:
			names = append(names, f.Name)
		}
	}
	return orList(names)
}

// ExploreFormats names the formats that draw a document's explorations,
// as FormatList does ("table, json or html"); alone: the document holds
// nothing else.
func ExploreFormats(alone bool) string {
	var names []string
	for _, f := range formats {
		if f.Explores || alone && f.ExploresAlone {
			names = append(names, f.Name)
		}
	}
	return orList(names)
}

// orList joins names as a sentence does: "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
