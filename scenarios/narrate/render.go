package narrate

import (
	"fmt"
	"strings"
)

// renderer turns the scheduled steps into lines and diagram statements.
type renderer struct {
	s        *story
	lines    []string
	mer      []string
	storedBy *unit                     // the request whose response the key's store holds
	commits  map[*unit]bool            // the requests whose commit was told
	cut      map[*unit]map[string]bool // store links cut under a request, by diagram id
	arrow    map[*unit]bool            // the answer to the unit's client is drawn
	funded   int                       // the last stage whose top-ups were told
	evented  int                       // the last stage whose store events were told
}

func newRenderer(s *story) *renderer {
	return &renderer{s: s, cut: map[*unit]map[string]bool{}, arrow: map[*unit]bool{}, commits: map[*unit]bool{}}
}

// say adds a narration line.
func (r *renderer) say(format string, args ...any) {
	r.lines = append(r.lines, fmt.Sprintf(format, args...))
}

// draw adds a diagram statement.
func (r *renderer) draw(format string, args ...any) {
	r.mer = append(r.mer, mermaidSafe(fmt.Sprintf(format, args...)))
}

// step tells one step.
func (r *renderer) step(st *step) {
	if st.resume != nil {
		r.resume(st)
	}
	switch st.kind {
	case sendStep:
		r.send(st.u)
	case pointStep:
		r.point(st)
	case answerStep:
		r.answer(st.u)
	case resultStep:
		r.result(st.u)
	}
}

// numbered is the lines with their numbers.
func (r *renderer) numbered() []string {
	out := make([]string, len(r.lines))
	for i, l := range r.lines {
		out[i] = fmt.Sprintf("%d. %s", i+1, l)
	}
	return out
}

// mermaidSafe drops what ends a Mermaid message early: '#' starts an entity
// and ';' a new statement.
func mermaidSafe(s string) string {
	return strings.NewReplacer("#", "", ";", ",").Replace(s)
}
