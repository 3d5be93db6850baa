package reports

import (
	"fmt"
	"github.com/idemchaos/idemchaos/results"
	"strings"
)

// gap separates the columns of the matrix.
const gap = "  "

// grid is the strategy x scenario matrix, in the order the results came.
type grid struct {
	strategies, scens []string
	at                map[[2]string]mark
}

func newGrid(cells []results.Cell) grid {
	g := grid{at: map[[2]string]mark{}}
	g.strategies, g.scens = axes(cells)
	for _, c := range cells {
		g.at[[2]string{c.Strategy, c.Scenario}] = markOf(c)
	}
	return g
}

// column is one column of the laid-out matrix: its header and cells (one
// per strategy), with the tone of each cell.
type column struct {
	head  string
	cells []string
	tones []tone
	width int
}

// columns lays the matrix out: the strategy column first, then a column
// per scenario, named in full or, compact, by its number in the key.
func (g grid) columns(compact bool) []column {
	first := column{head: "strategy", cells: g.strategies, tones: make([]tone, len(g.strategies))}
	out := []column{first}
	for i, sc := range g.scens {
		col := column{head: sc}
		if compact {
			col.head = fmt.Sprint(i + 1)
		}
		for _, st := range g.strategies {
			m, ok := g.at[[2]string{st, sc}]
			switch {
			case !ok:
				col.cells, col.tones = append(col.cells, "-"), append(col.tones, plain)
			case compact:
				col.cells, col.tones = append(col.cells, m.compact()), append(col.tones, m.tone())
			default:
				col.cells, col.tones = append(col.cells, m.full()), append(col.tones, m.tone())
			}
		}
		out = append(out, col)
	}
	for i := range out {
		out[i].width = width(out[i].head)
		for _, c := range out[i].cells {
			out[i].width = max(out[i].width, width(c))
		}
	}
	return out
}

// width is how wide the matrix is on one block of columns.
func (g grid) width(compact bool) int {
	n := 0
	for i, c := range g.columns(compact) {
		if i > 0 {
			n += len(gap)
		}
		n += c.width
	}
	return n
}

// render writes the matrix: compact, after the key of its numbered
// scenario columns, in as many blocks of columns as the width needs (each
// with the strategy column); else in full, in one block.
func (g grid) render(v View, compact bool) string {
	var b strings.Builder
	if compact {
		var key []string
		for i, sc := range g.scens {
			key = append(key, fmt.Sprintf("%d %s", i+1, sc))
		}
		b.WriteString(wrapList("scenarios: ", key, v.Width) + "\n")
	}
	cols := g.columns(compact)
	for i, block := range blocks(cols, v, compact) {
		if i > 0 {
			b.WriteString("\n")
		}
		g.writeBlock(&b, v, append([]column{cols[0]}, block...))
	}
	return b.String()
}

// blocks splits the scenario columns into runs that fit the width beside
// the strategy column, as few as fit and as even as they can be (one block
// when the width is not limited, or in full: the full layout is chosen
// when it fits, or asked for).
func blocks(cols []column, v View, compact bool) [][]column {
	if !compact || v.Width <= 0 {
		return [][]column{cols[1:]}
	}
	greedy := packed(cols, v.Width)
	n := len(cols) - 1
	size := (n + len(greedy) - 1) / len(greedy)
	var even [][]column
	for i := 0; i < n; i += size {
		even = append(even, cols[1+i:1+min(i+size, n)])
	}
	for _, b := range even {
		if blockWidth(cols[0], b) > v.Width {
			return greedy
		}
	}
	return even
}

func blockWidth(first column, block []column) int {
	n := first.width
	for _, c := range block {
		n += len(gap) + c.width
	}
	return n
}

// packed fills each block with as many columns as fit, in order.
func packed(cols []column, limit int) [][]column {
	var out [][]column
	var cur []column
	used := cols[0].width
	for _, c := range cols[1:] {
		if len(cur) > 0 && used+len(gap)+c.width > limit {
			out = append(out, cur)
			cur, used = nil, cols[0].width
		}
		cur = append(cur, c)
		used += len(gap) + c.width
	}
	return append(out, cur)
}

func (g grid) writeBlock(b *strings.Builder, v View, cols []column) {
	row := func(cell func(column) (string, tone)) {
		var line strings.Builder
		for i, c := range cols {
			text, t := cell(c)
			if i > 0 {
				line.WriteString(gap)
			}
			line.WriteString(v.paint(t, text))
			if i < len(cols)-1 {
				line.WriteString(strings.Repeat(" ", c.width-width(text)))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	row(func(c column) (string, tone) { return c.head, plain })
	for r := range g.strategies {
		row(func(c column) (string, tone) { return c.cells[r], c.tones[r] })
	}
}
