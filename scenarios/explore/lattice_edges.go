package explore

import (
	"cmp"
	"slices"
)

// Edge is a step between two adjacent states of the lattice: from node
// (I, J), A's step I+1 (Request 0, across to (I+1, J)) or B's step J+1
// (Request 1, down to (I, J+1)).
type Edge struct {
	I, J, Request int
}

// To is the node the edge leads to.
func (e Edge) To() (i, j int) {
	if e.Request == 0 {
		return e.I + 1, e.J
	}
	return e.I, e.J + 1
}

// EdgeOrders are the orders along one edge of the lattice.
type EdgeOrders struct {
	Edge
	// Classes counts the orders along it by outcome class.
	Classes map[string]int
	// Points are the points the step left, as the orders along it named
	// them (one, unless the request's path branched before).
	Points []string
	// Waited counts the orders in which the request released here
	// waited on the other.
	Waited int
	// Entered counts the failing orders that enter the lattice's lost
	// region by this edge: the first lost node of their path is its end.
	Entered int
}

// Orders counts the orders along the edge.
func (e EdgeOrders) Orders() int {
	n := 0
	for _, c := range e.Classes {
		n += c
	}
	return n
}

// Edges lists the edges the runs take through l (the lattice of those
// runs), by node then request.
func (l *Lattice) Edges(runs []Run) []EdgeOrders {
	at := map[Edge]*EdgeOrders{}
	for _, run := range runs {
		i, j, entered := 0, 0, l.Nodes[0][0].Lost()
		for _, s := range run.Steps {
			e := Edge{I: i, J: j, Request: s.Request}
			eo := at[e]
			if eo == nil {
				eo = &EdgeOrders{Edge: e, Classes: map[string]int{}}
				at[e] = eo
			}
			eo.Classes[run.Class]++
			if !slices.Contains(eo.Points, s.From) {
				eo.Points = append(eo.Points, s.From)
			}
			if s.Waited {
				eo.Waited++
			}
			i, j = e.To()
			if !entered && l.Nodes[j][i].Lost() {
				eo.Entered++
				entered = true
			}
		}
	}
	out := make([]EdgeOrders, 0, len(at))
	for _, eo := range at {
		out = append(out, *eo)
	}
	slices.SortFunc(out, func(a, b EdgeOrders) int {
		return cmp.Or(cmp.Compare(a.J, b.J), cmp.Compare(a.I, b.I), cmp.Compare(a.Request, b.Request))
	})
	return out
}
