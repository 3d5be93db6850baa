package main

import "strings"

// nearest is the known name v most likely stands for: the one a typo or two
// away (a swap of neighbours counts once), or the only one v begins; ""
// when none is close enough to say.
func nearest(v string, known []string) string {
	best, bestDist := "", 0
	for _, k := range known {
		d := distance(v, k)
		if best == "" || d < bestDist {
			best, bestDist = k, d
		}
	}
	limit := 1
	if len(v) >= 5 {
		limit = 2
	}
	if best != "" && bestDist <= limit {
		return best
	}
	prefixed := ""
	for _, k := range known {
		if v != "" && strings.HasPrefix(k, v) {
			if prefixed != "" {
				return ""
			}
			prefixed = k
		}
	}
	return prefixed
}

// distance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of neighbours.
func distance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// didYouMean is "did you mean X? " when v is close to a known name.
func didYouMean(v string, known []string) string {
	if m := nearest(v, known); m != "" {
		return "did you mean " + m + "? "
	}
	return ""
}
