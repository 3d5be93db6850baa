package narrate

// schedule tells every step once, each after its predecessors. Among the
// steps that may come next: the request told last goes on while it can,
// unless a gate holds it; else the first request in story order that can
// go on; a held request only when no other can. The choice depends on the
// story's structure alone, never on timing.
func (s *story) schedule() []*step {
	total := 0
	for _, u := range s.units {
		total += len(u.steps)
	}
	out := make([]*step, 0, total)
	var cur *unit
	held := map[*unit]bool{}
	for len(out) < total {
		st := s.pickNext(cur, held)
		st.done = true
		out = append(out, st)
		cur = st.u
		held[cur] = st.hold
	}
	return out
}

// pickNext chooses the next step to tell.
func (s *story) pickNext(cur *unit, held map[*unit]bool) *step {
	if cur != nil && !held[cur] {
		if st := cur.pending(); st != nil && st.ready() {
			return st
		}
	}
	var waiting, fallback *step
	for _, u := range s.units {
		st := u.pending()
		if st == nil {
			continue
		}
		if fallback == nil || st.at < fallback.at {
			fallback = st
		}
		switch {
		case !st.ready():
		case !held[u]:
			return st
		case waiting == nil:
			waiting = st
		}
	}
	if waiting != nil {
		return waiting
	}
	return fallback // a cycle in the observed data: fall back on observed time
}

// pending is the unit's first step not yet told, or nil.
func (u *unit) pending() *step {
	for _, st := range u.steps {
		if !st.done {
			return st
		}
	}
	return nil
}

// ready reports whether everything that must come before st was told.
func (st *step) ready() bool {
	for _, p := range st.preds {
		if !p.done {
			return false
		}
	}
	return true
}
