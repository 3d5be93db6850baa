package explore

// The classes of an order that broke nothing, as Outcome.Class names them;
// an order that broke an invariant is classed by its first anomaly.
const (
	ClassRefused  = "refused"
	ClassReplayed = "replayed"
	ClassHeld     = "held"
)

// ClassDoc is a class of orders that broke nothing, with what it means.
type ClassDoc struct {
	Name, Means string
}

// holdingClasses are the classes of orders that broke nothing, in the
// order a legend lists them.
var holdingClasses = []ClassDoc{
	{ClassRefused, "broke nothing; a later request was refused (the profile's in-flight or mismatch status)"},
	{ClassReplayed, "broke nothing; a later request got the first one's answer replayed"},
	{ClassHeld, "broke nothing; no request was refused and at most one succeeded"},
}

// HoldingClasses lists the classes of orders that broke nothing, with
// what each means; every other class is an anomaly's name.
func HoldingClasses() []ClassDoc { return append([]ClassDoc(nil), holdingClasses...) }
