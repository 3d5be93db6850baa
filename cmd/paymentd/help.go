package main

import "strings"

// helpText is how wide a flag's description may run: PrintDefaults
// indents it by a tab (to column 8), and the help fits 100 columns.
const helpText = 90

// wrapList is head followed by items, comma-separated, each item whole,
// broken into lines of at most helpText columns (PrintDefaults indents
// each line it finds in a flag's description).
func wrapList(head string, items []string) string {
	var b strings.Builder
	line := head
	for i, item := range items {
		if i < len(items)-1 {
			item += ","
		}
		if len(line)+1+len(item) > helpText {
			b.WriteString(line + "\n")
			line = item
			continue
		}
		line += " " + item
	}
	return b.String() + line
}
