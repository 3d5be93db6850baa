package reports

import (
	"strings"
	"unicode/utf8"
)

// View is how the terminal renderers lay text out: the width to fit, the
// full layout on request, colour, and where the findings a view leaves out
// are kept. The zero View is the full layout, unwrapped and plain.
type View struct {
	Width int  // columns to fit; 0: no limit
	Wide  bool // the full layout even where it does not fit Width
	// Color emphasises verdicts with ANSI colour; the words say everything
	// without it.
	Color bool
	// Kept says where every finding of the run is kept ("in the run
	// directory runs/x", "in results.json"); "" when nowhere.
	Kept string
	// Report is the HTML report the run wrote ("": none). The table then
	// leaves the evidence of the cells caught as declared to it, and
	// prints only that of the cells to look at.
	Report string
}

// DefaultWidth is the width a terminal view fits when none is known.
const DefaultWidth = 120

// tone is the emphasis of a verdict's words.
type tone int

const (
	plain      tone = iota
	tonePass        // passed
	toneCaught      // a flaw caught as declared: expected, not alarming
	toneBroken      // not as declared, or a user's service broke an invariant
	toneUnsure      // inconclusive
	toneStrong      // a heading
)

var toneCodes = map[tone]string{tonePass: "32", toneCaught: "36", toneBroken: "1;31", toneUnsure: "33", toneStrong: "1"}

// paint wraps s in the tone's colour when the view has colour, word by
// word, so that text wrapped at its spaces stays coloured line by line.
func (v View) paint(t tone, s string) string {
	if !v.Color || t == plain || s == "" {
		return s
	}
	words := strings.Split(s, " ")
	for i, w := range words {
		if w != "" {
			words[i] = "\033[" + toneCodes[t] + "m" + w + "\033[0m"
		}
	}
	return strings.Join(words, " ")
}

// fits reports whether a line of n columns fits the view.
func (v View) fits(n int) bool { return v.Width <= 0 || n <= v.Width }

// width is the number of columns s takes on a terminal: its runes, less
// the colour escapes paint adds.
func width(s string) int {
	n := utf8.RuneCountInString(s)
	for rest := s; ; {
		i := strings.Index(rest, "\033[")
		if i < 0 {
			return n
		}
		j := strings.IndexByte(rest[i:], 'm')
		if j < 0 {
			return n
		}
		n -= utf8.RuneCountInString(rest[i : i+j+1])
		rest = rest[i+j+1:]
	}
}

// pad right-pads s with spaces to n columns.
func pad(s string, n int) string {
	if w := width(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// Wrap breaks text into lines of at most width columns at its spaces, the
// first after head, the others after indent (width 0: one line).
func Wrap(head, indent, text string, width int) string { return wrapWords(head, indent, text, width) }

// wrapWords breaks text into lines of at most limit columns at its
// spaces: the first starts with head, the others with indent.
func wrapWords(head, indent, text string, limit int) string {
	return wrapTokens(head, indent, strings.Fields(text), limit)
}

// wrapList writes entries after head, comma-separated, each entry whole,
// breaking lines before limit with the continuation under the first entry.
func wrapList(head string, entries []string, limit int) string {
	tokens := make([]string, len(entries))
	for i, e := range entries {
		tokens[i] = e
		if i < len(entries)-1 {
			tokens[i] += ","
		}
	}
	return wrapTokens(head, strings.Repeat(" ", width(head)), tokens, limit)
}

// wrapTokens lays tokens out one space apart in lines of at most limit
// columns, the first after head, the others after indent. A token longer
// than a line gets a line of its own; limit 0 keeps one line.
func wrapTokens(head, indent string, tokens []string, limit int) string {
	var b strings.Builder
	line, fresh := head, true
	for _, t := range tokens {
		if !fresh && limit > 0 && width(line)+1+width(t) > limit {
			b.WriteString(line + "\n")
			line, fresh = indent, true
		}
		if !fresh {
			line += " "
		}
		line += t
		fresh = false
	}
	b.WriteString(line + "\n")
	return b.String()
}
