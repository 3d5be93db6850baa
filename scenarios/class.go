package scenarios

// Class is what a result is when read against the catalog's declaration
// for its cell; the matrix's exit code, the soak's tally and the reports'
// marks all read results this way.
type Class int

// The classes.
const (
	Passed     Class = iota // passed, as declared
	Caught                  // failed with the declared anomalies: a flaw caught
	Unexpected              // failed where it must pass, or not as declared
	Missed                  // passed where the catalog declares a flaw
	Unproven                // a self-check failed: neither pass nor fail
)

var classNames = [...]string{"pass", "caught", "UNEXPECTED", "missed", "inconclusive"}

func (c Class) String() string { return classNames[c] }

// Class reads the result against its declaration.
func (r Result) Class() Class {
	switch {
	case r.Verdict == Inconclusive:
		return Unproven
	case r.AsExpected && r.Verdict == Fail:
		return Caught
	case r.AsExpected:
		return Passed
	case r.Verdict == Pass:
		return Missed
	}
	return Unexpected
}

// NotAsDeclared reports whether the class is a regression of the catalog:
// an anomaly where none was declared, or a declared flaw not caught.
func (c Class) NotAsDeclared() bool { return c == Unexpected || c == Missed }
