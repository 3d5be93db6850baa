package strategytest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// TestConformance runs every contract case against every strategy of the
// catalog, each case on its own database and Redis prefix; strategies run
// in parallel, the cases of one strategy one after another. A strategy must
// fail exactly the cases mustFail names for it.
func TestConformance(t *testing.T) {
	seen := &observed{}
	t.Run("strategy", func(t *testing.T) {
		for _, info := range design.Catalog() {
			t.Run(info.Name, func(t *testing.T) {
				t.Parallel()
				for _, c := range contractCases() {
					t.Run(c.name, func(t *testing.T) { runCase(t, info, c, seen) })
				}
			})
		}
	})
	t.Log("observed (FAIL* = the expected failure of a flawed design):\n" + seen.table())
}

// runCase runs one case on one strategy and judges it against mustFail.
func runCase(t *testing.T, info design.Info, c contractCase, seen *observed) {
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	fx := newFixture(ctx, t, info.Name, c.tune)
	got := c.run(ctx, fx)
	want := expectedToFail(info.Name, c.name)
	seen.note(info.Name, c.name, len(got) > 0, want)
	switch {
	case want && len(got) == 0:
		t.Errorf("%s passed %s, but its flaw (%s) must make it fail", info.Name, c.name, info.Flaw)
	case want:
		t.Logf("expected failure, the flaw %q: %s", info.Flaw, strings.Join(got, "; "))
	default:
		for _, msg := range got {
			t.Error(msg)
		}
	}
}

// observed collects the outcome of every (strategy, case) for the summary.
type observed struct {
	mu   sync.Mutex
	cell map[[2]string]string
}

func (o *observed) note(strategy, c string, failed, expected bool) {
	mark := map[[2]bool]string{{false, false}: "pass", {true, true}: "FAIL*",
		{true, false}: "FAIL!", {false, true}: "pass!"}[[2]bool{failed, expected}]
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cell == nil {
		o.cell = map[[2]string]string{}
	}
	o.cell[[2]string{strategy, c}] = mark
}

// table renders the outcomes, a strategy per row; "!" marks a surprise.
func (o *observed) table() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	width := 0
	for _, name := range design.Names() {
		width = max(width, len(name))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s", width, "")
	for _, c := range contractCases() {
		fmt.Fprintf(&b, " %-20s", c.name)
	}
	for _, name := range design.Names() {
		row := fmt.Sprintf("\n%-*s", width, name)
		ran := false
		for _, c := range contractCases() {
			mark, ok := o.cell[[2]string{name, c.name}]
			if !ok {
				mark = "-" // filtered out by -run
			}
			ran = ran || ok
			row += fmt.Sprintf(" %-20s", mark)
		}
		if ran {
			b.WriteString(strings.TrimRight(row, " "))
		}
	}
	return b.String()
}
