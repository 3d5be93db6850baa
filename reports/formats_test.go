package reports_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
)

// TestFormatsRenderWhatTheirWritersDo: each format of the registry renders
// a run document as its writer does (so `report --format X` shows what
// the run itself showed), and a bench document where it can.
func TestFormatsRenderWhatTheirWritersDo(t *testing.T) {
	doc := fixture()
	want := map[string][]byte{
		"table":    render(t, func(w io.Writer, d results.Document) error { return reports.WriteTable(w, d.Results, reports.View{}) }, doc),
		"json":     render(t, results.WriteJSON, doc),
		"junit":    render(t, reports.WriteJUnit, doc),
		"markdown": render(t, reports.WriteMarkdown, doc),
		"html":     render(t, reports.WriteHTML, doc),
	}
	if len(reports.Formats()) != len(want) {
		t.Fatalf("formats %v; want %d", reports.FormatNames(), len(want))
	}
	for _, f := range reports.Formats() {
		var b bytes.Buffer
		if err := f.Run(&b, doc, reports.View{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), want[f.Name]) {
			t.Errorf("format %s renders another document than its writer", f.Name)
		}
		if got, ok := reports.FormatNamed(f.Name); !ok || got.Name != f.Name {
			t.Errorf("FormatNamed(%q) = %v, %v", f.Name, got.Name, ok)
		}
		if f.Bench == nil {
			continue
		}
		b.Reset()
		if err := f.Bench(&b, benchFixture()); err != nil || b.Len() == 0 {
			t.Errorf("format %s on a bench document: %v, %d bytes", f.Name, err, b.Len())
		}
	}
	if _, ok := reports.FormatNamed("pdf"); ok {
		t.Error("an unknown format was found")
	}
}

// TestFormatList: the help texts name the formats from the registry.
func TestFormatList(t *testing.T) {
	for _, c := range []struct {
		note  string
		bench bool
		want  string
	}{
		{"", false, "table, json, junit, markdown or html"},
		{"(matrix results only)", false, "table, json, junit (matrix results only), markdown or html"},
		{"", true, "table, json, markdown or html"},
	} {
		if got := reports.FormatList(c.note, c.bench); got != c.want {
			t.Errorf("FormatList(%q, %v) = %q, want %q", c.note, c.bench, got, c.want)
		}
	}
}
