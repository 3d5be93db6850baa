package reports

import (
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
	// Explores says Run renders a document's explorations too.
	Explores bool
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

// formats is the registry, in the order help texts list them.
var formats = []Format{
	{Name: "table", Run: writeRunTable, Bench: WriteBenchTable, Explores: true},
	{Name: "json", Run: func(w io.Writer, d results.Document, _ View) error { return results.WriteJSON(w, d) },
		Bench: results.WriteBenchJSON, Explores: true},
	{Name: "junit", Run: func(w io.Writer, d results.Document, _ View) error { return WriteJUnit(w, d) }},
	{Name: "markdown", Run: func(w io.Writer, d results.Document, _ View) error { return WriteMarkdown(w, d) },
		Bench: WriteBenchMarkdown},
	{Name: "html", Run: func(w io.Writer, d results.Document, _ View) error { return WriteHTML(w, d) },
		Bench: WriteBenchHTML},
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
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
