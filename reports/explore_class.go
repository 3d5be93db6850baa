package reports

import (
	"slices"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/scenarios/explore"
)

// exploreClass is how an outcome class of an exploration reads: its
// colour, its title, whether its orders held, how many orders had it.
type exploreClass struct {
	Name, Colour, Title string
	Holds               bool
	Orders              int
}

// The colours of the classes: cool for the classes of orders that held,
// by their place in explore's catalog; warm for the anomalies, by kind
// (money red, a hold violet, the contract amber), by their place in the
// checker's catalog among their kind.
var (
	holdingColours = []string{"#3b5bdb", "#0c8599", "#2f9e44", "#1c7ed6", "#5c940d"}
	anomalyColours = map[check.Kind][]string{
		check.KindMoney:    {"#c92a2a", "#e8590c", "#a61e4d", "#f06595", "#d9480f"},
		check.KindHold:     {"#9c36b5", "#6741d9"},
		check.KindContract: {"#e67700", "#c2255c", "#5f3dc4", "#b08900", "#495057"},
	}
)

// classOf is the class named name: a class of orders that held, or an
// anomaly's (one the checker does not know keeps its name).
func classOf(name string) exploreClass {
	for i, c := range explore.HoldingClasses() {
		if c.Name == name {
			return exploreClass{Name: name, Colour: holdingColours[i%len(holdingColours)], Title: c.Means, Holds: true}
		}
	}
	d := check.Define(check.Anomaly(name))
	rank := 0
	for _, o := range check.Definitions() {
		if o.Anomaly == d.Anomaly {
			break
		}
		if o.Kind == d.Kind {
			rank++
		}
	}
	palette := anomalyColours[d.Kind]
	return exploreClass{Name: name, Colour: palette[rank%len(palette)], Title: d.Title}
}

// classesOf lists the classes of an exploration's orders with their
// counts, in the legend's order: those that held, in explore's catalog
// order, then the anomalies in the checker's, then any other by name.
func classesOf(res explore.Result) []exploreClass {
	var order []string
	for _, c := range explore.HoldingClasses() {
		order = append(order, c.Name)
	}
	order = append(order, check.Names()...)
	counts := res.Classes()
	var rest []string
	for name := range counts {
		if !slices.Contains(order, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	var out []exploreClass
	for _, name := range append(order, rest...) {
		if n := counts[name]; n > 0 {
			c := classOf(name)
			c.Orders = n
			out = append(out, c)
		}
	}
	return out
}

// classRank is a class's place in the legend's order, for sorting the
// strokes of an edge the same way.
func classRank(classes []exploreClass, name string) int {
	return slices.IndexFunc(classes, func(c exploreClass) bool { return c.Name == name })
}
