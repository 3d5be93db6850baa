package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios/check"
)

// anomalyText lists the non-zero anomaly counts, sorted by name.
func anomalyText(m map[check.Anomaly]int) string {
	var parts []string
	for _, name := range sortedNames(m) {
		if m[name] > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", name, m[name]))
		}
	}
	if len(parts) == 0 {
		return "no anomaly"
	}
	return strings.Join(parts, " ")
}

func sortedNames(m map[check.Anomaly]int) []check.Anomaly {
	return slices.Sorted(maps.Keys(m))
}
