package narrate

import (
	"fmt"
	"sort"
	"strings"
)

// diagram is the story as a Mermaid sequenceDiagram: the clients in story
// order, the replicas that served them, Redis if the strategy uses it, and
// Postgres.
func (r *renderer) diagram() string {
	var b strings.Builder
	b.WriteString("sequenceDiagram\n")
	for _, p := range r.participants() {
		fmt.Fprintf(&b, "    %s\n", p)
	}
	for _, m := range r.mer {
		fmt.Fprintf(&b, "    %s\n", m)
	}
	return b.String()
}

func (r *renderer) participants() []string {
	var out []string
	replicas := map[int]bool{}
	for _, o := range r.s.ops {
		u := o.units[0]
		out = append(out, fmt.Sprintf("participant %s as %s", u.mid(), u.client()))
		for _, u := range o.units {
			replicas[u.replicaNum()] = true
		}
	}
	nums := make([]int, 0, len(replicas))
	for n := range replicas {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	for _, n := range nums {
		out = append(out, fmt.Sprintf("participant R%d as replica %d", n, n))
	}
	if r.s.mech.usesRedis {
		out = append(out, "participant Redis")
	}
	return append(out, "participant PG as "+r.s.mech.sql)
}
