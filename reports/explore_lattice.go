package reports

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios/explore"
)

// The lattice's drawing, in SVG user units (pixels at its natural size).
const (
	latStep  = 76.0 // between adjacent states
	latNodeR = 9.0
	latCharW = 7.2  // the widest average character of a 12 px label
	latRise  = 35.0 // the angle, in degrees, at which A's step names rise
	latPad   = 10.0
	latLabel = 16.0 // between the grid and its labels
	// An edge's band: a stroke per class, as wide as latBand times the
	// square root of its share of the busiest class of any edge, never
	// thinner than latMinBand.
	latBand    = 6.0
	latMinBand = 1.5
)

// latticeView is the lattice drawn: the faint grid of every step, the
// steps the orders took coloured by their classes, the states coloured
// by the orders through them, the labels, and the path of the shortest
// failing order.
type latticeView struct {
	Width, Height, ViewBox string
	Grid                   []svgLine
	Edges                  []latticeEdge
	Nodes                  []latticeNode
	Labels                 []svgText
	// Path is the shortest failing order's path (polyline points), Order
	// its name; "" when every order held.
	Path, Order string
	// Key is the legend of the states: one of each kind, with counts.
	Key []nodeKey
	// Waits: some step waited on the other request.
	Waits bool
	// Window says where the orders that fail enter the lost region.
	Window []windowEntry
	// Entered counts the failing orders that do, Failing all that fail.
	Entered, Failing int
}

type svgLine struct{ X1, Y1, X2, Y2 string }

type svgText struct{ X, Y, Text, Anchor, Class, Transform string }

// latticeEdge is one step some orders took: a stroke per class, side by
// side; Entered marks a step by which failing orders enter the lost
// region, Waited one at which the released request waited on the other.
type latticeEdge struct {
	Title           string
	Line            svgLine
	Strokes         []edgeStroke
	Entered, Waited bool
	Halo            string // the width of the entry's highlight
}

type edgeStroke struct {
	svgLine
	Colour, Width string
}

// latticeNode is one state: its colour says whether the orders through it
// all hold (safe), all fail (lost), or both (open: a ring around a pie,
// the failing share red); a state no order reached is a dot.
type latticeNode struct {
	X, Y, Title, State string
	// Pie is an open state's failing share as the dash array of its pie.
	Pie string
}

// nodeKey is one kind of state in the legend: how it is drawn, how many
// states are of it, what it means.
type nodeKey struct {
	Node    latticeNode
	States  int
	Means   string
	NoCount bool
}

// The pie of an open state: a stroke of pieR wide at half that radius.
const pieR = 6.0

// windowEntry is where failing orders enter the lost region: Mover's
// step Step (named Point) while the other request is at one of Where.
type windowEntry struct {
	Mover, Point, Other, Where string
	Step, Orders               int
}

// String says it in a line: "B's step 1 (send) while A is at A1 to A4
// (past send, not yet past before-store-response): 95 orders".
func (e windowEntry) String() string {
	return fmt.Sprintf("%s's step %d (%s) while %s is at %s: %s", e.Mover, e.Step, e.Point, e.Other, e.Where, plural(e.Orders, "order"))
}

// latticeOf draws the lattice of res's runs; nil for three requests, or
// for a single order.
func latticeOf(res explore.Result, classes []exploreClass) *latticeView {
	l := explore.LatticeOf(res.Runs)
	if l == nil || len(res.Runs) < 2 {
		return nil
	}
	g := latticeGeometry(l)
	v := &latticeView{Width: coord(g.width), Height: coord(g.height), ViewBox: fmt.Sprintf("0 0 %s %s", coord(g.width), coord(g.height)),
		Labels: g.labels(l)}
	for j, row := range l.Nodes {
		for i := range row {
			if i < len(row)-1 {
				v.Grid = append(v.Grid, g.line(i, j, i+1, j))
			}
			if j < len(l.Nodes)-1 {
				v.Grid = append(v.Grid, g.line(i, j, i, j+1))
			}
		}
	}
	edges := l.Edges(res.Runs)
	busiest := 1
	for _, e := range edges {
		for _, n := range e.Classes {
			busiest = max(busiest, n)
		}
	}
	for _, e := range edges {
		v.Edges = append(v.Edges, g.edge(e, classes, busiest))
		v.Entered += e.Entered
		v.Waits = v.Waits || e.Waited > 0
	}
	states := map[string]int{}
	for j, row := range l.Nodes {
		for i, n := range row {
			node := g.node(i, j, n)
			v.Nodes = append(v.Nodes, node)
			states[node.State]++
		}
	}
	v.Key = stateKey(states)
	failing := res.Failing()
	v.Failing = len(failing)
	if len(failing) > 0 {
		v.Path, v.Order = g.path(failing[0]), failing[0].Order.String()
	}
	v.Window = windowOf(l, edges)
	return v
}

// latticeFrame places the states: node (i, j) at (left + i*latStep,
// top + j*latStep), the labels around.
type latticeFrame struct {
	left, top, width, height float64
}

func latticeGeometry(l *explore.Lattice) latticeFrame {
	rise := latRise * math.Pi / 180
	leftText := len(fmt.Sprintf("B%d", len(l.B)))
	for k, s := range l.B {
		leftText = max(leftText, len(stepLabel(k, s)))
	}
	g := latticeFrame{left: latPad + latLabel + float64(leftText)*latCharW}
	topText, right := 0.0, latNodeR+latPad
	for k, s := range l.A {
		w := float64(len(stepLabel(k, s))) * latCharW
		topText = max(topText, w*math.Sin(rise))
		right = max(right, (float64(k)+0.5-float64(len(l.A)))*latStep+w*math.Cos(rise)+latPad)
	}
	g.top = latPad + topText + 2*latLabel + 8
	g.width = g.left + float64(len(l.A))*latStep + right
	g.height = g.top + float64(len(l.B))*latStep + latNodeR + latPad
	return g
}

func (g latticeFrame) x(i int) float64 { return g.left + float64(i)*latStep }
func (g latticeFrame) y(j int) float64 { return g.top + float64(j)*latStep }

func (g latticeFrame) line(i1, j1, i2, j2 int) svgLine {
	return svgLine{coord(g.x(i1)), coord(g.y(j1)), coord(g.x(i2)), coord(g.y(j2))}
}

// labels names the states (A0 across the top, B0 down the left) and,
// between them, the steps.
func (g latticeFrame) labels(l *explore.Lattice) []svgText {
	var out []svgText
	for i := range len(l.A) + 1 {
		out = append(out, svgText{X: coord(g.x(i)), Y: coord(g.top - latLabel), Text: fmt.Sprintf("A%d", i), Anchor: "middle", Class: "idx"})
	}
	for k, s := range l.A {
		x, y := coord(g.x(k)+latStep/2), coord(g.top-2*latLabel-4)
		out = append(out, svgText{X: x, Y: y, Text: stepLabel(k, s), Anchor: "start", Class: "stp",
			Transform: fmt.Sprintf("rotate(-%s %s %s)", coord(latRise), x, y)})
	}
	for j := range len(l.B) + 1 {
		out = append(out, svgText{X: coord(g.left - latLabel), Y: coord(g.y(j) + 4), Text: fmt.Sprintf("B%d", j), Anchor: "end", Class: "idx"})
	}
	for k, s := range l.B {
		out = append(out, svgText{X: coord(g.left - latLabel), Y: coord(g.y(k) + latStep/2 + 4), Text: stepLabel(k, s), Anchor: "end", Class: "stp"})
	}
	return out
}

// stepLabel names a request's step k (from 0): "2 after-check".
func stepLabel(k int, point string) string { return strconv.Itoa(k+1) + " " + point }

// edge draws e: a stroke per class through it, in the legend's order,
// side by side across the step.
func (g latticeFrame) edge(e explore.EdgeOrders, classes []exploreClass, busiest int) latticeEdge {
	i2, j2 := e.To()
	out := latticeEdge{Line: g.line(e.I, e.J, i2, j2), Entered: e.Entered > 0, Waited: e.Waited > 0, Title: edgeTitle(e, classes)}
	names := make([]string, 0, len(e.Classes))
	for c := range e.Classes {
		names = append(names, c)
	}
	slices.SortFunc(names, func(a, b string) int { return classRank(classes, a) - classRank(classes, b) })
	widths := make([]float64, len(names))
	total := 0.0
	for k, c := range names {
		widths[k] = max(latMinBand, latBand*math.Sqrt(float64(e.Classes[c])/float64(busiest)))
		total += widths[k]
	}
	const gap = 1.0
	total += gap * float64(len(names)-1)
	out.Halo = coord(total + 7)
	off := -total / 2
	for k, c := range names {
		mid := off + widths[k]/2
		dx, dy := 0.0, mid // A's steps run across: the strokes stack down
		if e.Request == 1 {
			dx, dy = mid, 0
		}
		out.Strokes = append(out.Strokes, edgeStroke{
			svgLine: svgLine{coord(g.x(e.I) + dx), coord(g.y(e.J) + dy), coord(g.x(i2) + dx), coord(g.y(j2) + dy)},
			Colour:  classOf(c).Colour, Width: coord(widths[k])})
		off += widths[k] + gap
	}
	return out
}

// edgeTitle is what hovering a step says: which step, between which
// states, the orders through it by class, the waits and the entries.
func edgeTitle(e explore.EdgeOrders, classes []exploreClass) string {
	i2, j2 := e.To()
	who, k := "A", e.I+1
	if e.Request == 1 {
		who, k = "B", e.J+1
	}
	s := fmt.Sprintf("%s's step %d (%s), A%d B%d to A%d B%d: %s", who, k, strings.Join(e.Points, " or "), e.I, e.J, i2, j2,
		countsByClass(e.Classes, classes))
	if e.Waited > 0 {
		s += fmt.Sprintf("; %s waited on the other in %s", who, plural(e.Waited, "order"))
	}
	if e.Entered > 0 {
		s += fmt.Sprintf("; the lost region is entered here by %s", plural(e.Entered, "failing order"))
	}
	return s
}

// countsByClass writes counts of orders by class, in the legend's order:
// "24 orders: double_charge 20, replayed 4".
func countsByClass(counts map[string]int, classes []exploreClass) string {
	n := 0
	var parts []string
	for _, c := range classes {
		if counts[c.Name] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c.Name, counts[c.Name]))
			n += counts[c.Name]
		}
	}
	return plural(n, "order") + ": " + strings.Join(parts, ", ")
}

// node draws state (i, j).
func (g latticeFrame) node(i, j int, n explore.Node) latticeNode {
	out := latticeNode{X: coord(g.x(i)), Y: coord(g.y(j))}
	orders := n.Held + n.Failed
	where := fmt.Sprintf("A%d B%d, after A's first %s and B's first %s", i, j, plural(i, "step"), plural(j, "step"))
	switch {
	case orders == 0:
		out.State, out.Title = "none", where+": no order passes here"
		return out
	case n.Safe():
		out.State = "safe"
	case n.Lost():
		out.State = "lost"
	default:
		out.State, out.Pie = "open", pieDash(float64(n.Failed)/float64(orders))
	}
	out.Title = fmt.Sprintf("%s: %s pass here, %d hold, %d fail (%s); %s", where, plural(orders, "order"), n.Held, n.Failed,
		strings.Join(n.Classes, ", "), nodeMeans[out.State])
	return out
}

// pieDash draws a share of a pie as the dash array of its stroke.
func pieDash(share float64) string {
	c := math.Pi * pieR // the circumference at half the radius
	return coord(c*share) + " " + coord(c)
}

// nodeMeans says what a state's colour means, in the legend and its title.
var nodeMeans = map[string]string{
	"safe": "safe: every order through it holds",
	"lost": "lost: every order through it fails, whatever comes after",
	"open": "open: some orders through it hold, some fail (the red share of its disc)",
	"none": "no order passes there",
}

// stateKey is the legend of the states, with how many of each the
// lattice has.
func stateKey(states map[string]int) []nodeKey {
	var out []nodeKey
	for _, st := range []string{"safe", "lost", "open", "none"} {
		n := latticeNode{X: "11", Y: "11", State: st}
		if st == "open" {
			n.Pie = pieDash(1.0 / 3)
		}
		out = append(out, nodeKey{Node: n, States: states[st], Means: nodeMeans[st], NoCount: st == "none"})
	}
	return out
}

// path is the polyline of run's path through the lattice.
func (g latticeFrame) path(run explore.Run) string {
	i, j := 0, 0
	pts := []string{coord(g.x(i)) + "," + coord(g.y(j))}
	for _, s := range run.Steps {
		if s.Request == 0 {
			i++
		} else {
			j++
		}
		pts = append(pts, coord(g.x(i))+","+coord(g.y(j)))
	}
	return strings.Join(pts, " ")
}

// windowOf says where failing orders enter the lost region: by each step
// of each request, at which of the other's states, merged into ranges.
func windowOf(l *explore.Lattice, edges []explore.EdgeOrders) []windowEntry {
	type key struct{ mover, step int }
	where := map[key][]int{}
	orders := map[key]int{}
	var keys []key
	for _, e := range edges {
		if e.Entered == 0 {
			continue
		}
		k, at := key{e.Request, e.I + 1}, e.J
		if e.Request == 1 {
			k, at = key{1, e.J + 1}, e.I
		}
		if _, ok := where[k]; !ok {
			keys = append(keys, k)
		}
		where[k] = append(where[k], at)
		orders[k] += e.Entered
	}
	slices.SortFunc(keys, func(a, b key) int { return a.mover*1000 + a.step - b.mover*1000 - b.step })
	steps := [2][]string{l.A, l.B}
	var out []windowEntry
	for _, k := range keys {
		other := 1 - k.mover
		out = append(out, windowEntry{Mover: explore.Names[k.mover : k.mover+1], Step: k.step, Point: steps[k.mover][k.step-1],
			Other: explore.Names[other : other+1], Where: statesText(explore.Names[other:other+1], steps[other], where[k]),
			Orders: orders[k]})
	}
	return out
}

// statesText writes states of request r (named name, with steps) as
// ranges with what they mean: "A1 to A4 (past send, not yet past
// before-store-response)".
func statesText(name string, steps []string, at []int) string {
	slices.Sort(at)
	var parts []string
	for lo := 0; lo < len(at); {
		hi := lo
		for hi+1 < len(at) && at[hi+1] == at[hi]+1 {
			hi++
		}
		parts = append(parts, stateRange(name, steps, at[lo], at[hi]))
		lo = hi + 1
	}
	return strings.Join(parts, ", or ")
}

// stateRange writes the states from..to of a request.
func stateRange(name string, steps []string, from, to int) string {
	s := fmt.Sprintf("%s%d", name, from)
	if to > from {
		s += fmt.Sprintf(" to %s%d", name, to)
	}
	var means []string
	if from > 0 {
		means = append(means, "past "+steps[from-1])
	}
	if to < len(steps) {
		means = append(means, "not yet past "+steps[to])
	}
	if len(means) == 0 {
		return s
	}
	return s + " (" + strings.Join(means, ", ") + ")"
}
