package explore

import (
	"slices"
)

// Lattice is the picture of the orders of two requests: node (i, j) is
// the state after A's first i steps and B's first j, every order a path
// from (0, 0) along A's steps (across) and B's (down) to its end. Each
// node keeps the outcome classes of the orders that pass through it: a
// node all of whose orders hold is safe, one all of whose orders fail is
// lost (what follows cannot save it), one with both is still open. Where
// the lost region begins is the race's window.
type Lattice struct {
	// A and B name each request's steps, by the longest run of each.
	A, B []string `json:",omitempty"`
	// Nodes[j][i] is node (i, j).
	Nodes [][]Node `json:"nodes"`
}

// Node is a state of the lattice.
type Node struct {
	// Classes are the outcome classes of the orders through the node,
	// sorted; nil: no order passes.
	Classes []string `json:"classes,omitempty"`
	// Held counts the orders through it that held, Failed those that did not.
	Held   int `json:"held,omitempty"`
	Failed int `json:"failed,omitempty"`
}

// Safe, Lost and Open classify a node by its orders.
func (n Node) Safe() bool { return n.Held > 0 && n.Failed == 0 }

// Lost reports a node whose every order fails.
func (n Node) Lost() bool { return n.Failed > 0 && n.Held == 0 }

// LatticeOf is the lattice of the runs of an exploration of two requests
// (nil for three).
func LatticeOf(runs []Run) *Lattice {
	l := &Lattice{}
	for _, run := range runs {
		a, b := stepsOf(run.Steps, 0), stepsOf(run.Steps, 1)
		if len(a) > len(l.A) {
			l.A = a
		}
		if len(b) > len(l.B) {
			l.B = b
		}
		if slices.ContainsFunc(run.Steps, func(s Step) bool { return s.Request > 1 }) {
			return nil
		}
	}
	l.Nodes = make([][]Node, len(l.B)+1)
	for j := range l.Nodes {
		l.Nodes[j] = make([]Node, len(l.A)+1)
	}
	for _, run := range runs {
		i, j := 0, 0
		l.visit(i, j, run)
		for _, s := range run.Steps {
			if s.Request == 0 {
				i++
			} else {
				j++
			}
			l.visit(i, j, run)
		}
	}
	return l
}

// visit adds run to node (i, j).
func (l *Lattice) visit(i, j int, run Run) {
	n := &l.Nodes[j][i]
	if !slices.Contains(n.Classes, run.Class) {
		n.Classes = append(n.Classes, run.Class)
		slices.Sort(n.Classes)
	}
	if run.Outcome.Holds() && len(run.Varied) == 0 {
		n.Held++
	} else {
		n.Failed++
	}
}

// stepsOf is request r's steps, in order.
func stepsOf(steps []Step, r int) []string {
	var out []string
	for _, s := range steps {
		if s.Request == r {
			out = append(out, s.From)
		}
	}
	return out
}
