package explore

import (
	"slices"
	"testing"
)

// toy is a system of requests with steps[r] steps each: request r,
// released, does its next step; one whose next step is waitStep[r] (if
// >= 0) waits until request waitOn[r] has done waitFor[r] steps, as a
// request waits on a lock another holds.
type toy struct {
	steps, waitStep, waitOn, waitFor []int
}

// run executes prefix then the default, and returns the choices and the
// order.
func (s toy) run(prefix Order) ([]Choice, Order) {
	n := len(s.steps)
	done := make([]int, n)
	waiting := make([]bool, n)
	var choices []Choice
	var order Order
	last := -1
	for {
		var enabled uint8
		for r := range n {
			if done[r] < s.steps[r] && !waiting[r] {
				enabled |= 1 << r
			}
		}
		if enabled == 0 {
			return choices, order
		}
		r := Default(enabled, last)
		if len(choices) < len(prefix) {
			r = prefix[len(choices)]
		}
		choices = append(choices, Choice{Enabled: enabled, Chosen: r})
		order = append(order, r)
		last = r
		if s.waitStep != nil && s.waitStep[r] == done[r] && done[s.waitOn[r]] < s.waitFor[r] {
			waiting[r] = true
			continue
		}
		done[r]++
		for o := range n { // a waiter whose lock was released does its step
			if waiting[o] && done[s.waitOn[o]] >= s.waitFor[o] {
				waiting[o] = false
				done[o]++
			}
		}
	}
}

// explore runs every order the tree gives and returns them.
func explore(t *testing.T, s toy, preemptions int) []string {
	t.Helper()
	tree, err := NewTree(len(s.steps), preemptions)
	if err != nil {
		t.Fatal(err)
	}
	var orders []string
	for {
		job, ok := tree.Next()
		if !ok {
			return orders
		}
		choices, order := s.run(job.Prefix)
		orders = append(orders, order.String())
		if err := tree.Record(job, choices); err != nil {
			t.Fatal(err)
		}
		if len(orders) > 100000 {
			t.Fatal("no end")
		}
	}
}

func binomial(n, k int) int {
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - k + i) / i
	}
	return r
}

// TestEveryInterleaving: two requests of a and b steps have C(a+b, a)
// orders, each explored once.
func TestEveryInterleaving(t *testing.T) {
	for _, c := range [][2]int{{1, 1}, {3, 3}, {6, 6}, {7, 4}} {
		orders := explore(t, toy{steps: []int{c[0], c[1]}}, -1)
		if want := binomial(c[0]+c[1], c[0]); len(orders) != want {
			t.Errorf("%d and %d steps: %d orders, want %d", c[0], c[1], len(orders), want)
		}
		seen := map[string]bool{}
		for _, o := range orders {
			if seen[o] {
				t.Errorf("%d and %d steps: %s explored twice", c[0], c[1], o)
			}
			seen[o] = true
		}
	}
}

// TestWaitingRequest: a request that waits on a lock another holds is not
// released again until the other has gone past it; the orders are those
// of the system with the wait, each once, and B never does its third
// step before A's fourth.
func TestWaitingRequest(t *testing.T) {
	s := toy{steps: []int{5, 4}, waitStep: []int{-1, 2}, waitOn: []int{0, 0}, waitFor: []int{0, 4}}
	orders := explore(t, s, -1)
	if len(orders) == 0 {
		t.Fatal("no orders")
	}
	seen := map[string]bool{}
	for _, o := range orders {
		if seen[o] {
			t.Errorf("%s explored twice", o)
		}
		seen[o] = true
	}
	// the waiting: every order in which B is released for its third step
	// before A did its fourth has B released once more (the wait) than B's steps
	for _, o := range orders {
		if a, b := countOf(o, 'A'), countOf(o, 'B'); a != 5 || b < 4 || b > 5 {
			t.Errorf("order %s: A released %d times, B %d; want 5 and 4 or 5", o, a, b)
		}
	}
}

func countOf(s string, c rune) int {
	n := 0
	for _, r := range s {
		if r == c {
			n++
		}
	}
	return n
}

// TestPreemptionBound: with no preemption, each request runs to its end
// once chosen: two requests give two orders, three give six; each bound
// explores a superset of the one below it, and the unbounded tree all.
func TestPreemptionBound(t *testing.T) {
	s2 := toy{steps: []int{3, 3}}
	if got := explore(t, s2, 0); !slices.Equal(sorted(got), []string{"AAABBB", "BBBAAA"}) {
		t.Errorf("two requests, no preemption: %v", got)
	}
	s3 := toy{steps: []int{2, 2, 2}}
	if got := explore(t, s3, 0); len(got) != 6 {
		t.Errorf("three requests, no preemption: %d orders %v, want 6", len(got), got)
	}
	prev := map[string]bool{}
	for bound := 0; bound <= 4; bound++ {
		got := explore(t, s3, bound)
		for o := range prev {
			if !slices.Contains(got, o) {
				t.Errorf("bound %d lost %s, which bound %d explored", bound, o, bound-1)
			}
		}
		prev = map[string]bool{}
		for _, o := range got {
			prev[o] = true
		}
	}
	if all := explore(t, s3, -1); len(all) != 90 { // 6!/(2!2!2!)
		t.Errorf("three requests of two steps, unbounded: %d orders, want 90", len(all))
	}
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

// TestRecordRefusesADivergence: an execution that held other requests
// than the one that found its order, at the same choice, is reported, not
// explored.
func TestRecordRefusesADivergence(t *testing.T) {
	tree, _ := NewTree(2, -1)
	root, _ := tree.Next()
	if err := tree.Record(root, []Choice{{Enabled: 3, Chosen: 0}, {Enabled: 3, Chosen: 0}, {Enabled: 2, Chosen: 1}}); err != nil {
		t.Fatal(err)
	}
	job, _ := tree.Next()
	if job.Prefix.String() != "AB" {
		t.Fatalf("next prefix %s, want AB (depth first)", job.Prefix)
	}
	if err := tree.Record(job, []Choice{{Enabled: 3, Chosen: 0}, {Enabled: 1, Chosen: 1}}); err == nil {
		t.Error("a divergent execution was recorded")
	}
	job, _ = tree.Next()
	if err := tree.Record(job, []Choice{{Enabled: 3, Chosen: 0}}); err == nil {
		t.Error("an execution that did not follow its order was recorded")
	}
}

func TestParseOrder(t *testing.T) {
	o, err := ParseOrder("ABBA", 2)
	if err != nil || o.String() != "ABBA" {
		t.Errorf("ParseOrder(ABBA) = %v, %v", o, err)
	}
	for _, bad := range []string{"", "ABC", "AxB"} {
		if _, err := ParseOrder(bad, 2); err == nil {
			t.Errorf("ParseOrder(%q) took it", bad)
		}
	}
}
