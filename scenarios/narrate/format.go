package narrate

import (
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// shortLen is how many characters of a key the story shows.
const shortLen = 8

// short abbreviates a key to its first shortLen characters.
func short(key string) string {
	if utf8.RuneCountInString(key) <= shortLen {
		return key
	}
	n := 0
	for i := range key {
		if n == shortLen {
			return key[:i] + "…"
		}
		n++
	}
	return key
}

// money formats minor units with thousands separators: 997600 → "9,976.00".
func money(minor int64) string {
	sign := ""
	if minor < 0 {
		sign, minor = "-", -minor
	}
	whole := fmt.Sprint(minor / 100)
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return fmt.Sprintf("%s%s.%02d", sign, b.String(), minor%100)
}

// status names an HTTP status: "409 Conflict".
func status(code int) string {
	if t := http.StatusText(code); t != "" {
		return fmt.Sprintf("%d %s", code, t)
	}
	return fmt.Sprint(code)
}

// ms formats a duration in milliseconds with one decimal: "181.6ms".
func ms(d time.Duration) string {
	return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
}

// letter is the client letter of the i-th op of a story: A..Z, then AA, AB...
func letter(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return letter(i/26-1) + letter(i%26)
}
