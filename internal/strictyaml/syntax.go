package strictyaml

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// parserProblems are the YAML parser's (not scanner's) messages: the parser
// reports their line counted from 0, the scanner from 1.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'": true, "did not find expected ',' or '}'": true,
	"did not find expected '-' indicator": true, "did not find expected <document start>": true,
	"did not find expected <stream-start>": true, "did not find expected key": true,
	"did not find expected node content": true, "found duplicate %TAG directive": true,
	"found duplicate %YAML directive": true, "found incompatible YAML document": true,
	"found undefined tag handle": true,
}

var (
	lineMsg       = regexp.MustCompile(`^line (\d+): (.*)$`)
	unknownAnchor = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)
)

// syntaxError makes a YAML parser error one line that starts with the line
// of the file it is about, counted from 1.
func syntaxError(err error, data []byte) error {
	msg := oneLine(strings.TrimPrefix(err.Error(), "yaml: "))
	if m := lineMsg.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		if parserProblems[m[2]] {
			line++
		}
		return fmt.Errorf("line %d: %s", line, m[2])
	}
	if m := unknownAnchor.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("line %d: %s", lineOf(data, bytes.Index(data, []byte("*"+m[1]))), msg)
	}
	return fmt.Errorf("line %d: %s", lineOf(data, badByte(data)), msg)
}

// badByte is the offset of the first byte the YAML reader refuses (invalid
// UTF-8 or a control character), or -1.
func badByte(data []byte) int {
	if bytes.HasPrefix(data, []byte{0xfe, 0xff}) || bytes.HasPrefix(data, []byte{0xff, 0xfe}) {
		return -1 // UTF-16: leave it to the parser
	}
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 || r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f || r >= 0x80 && r <= 0x9f && r != 0x85 {
			return i
		}
		i += n
	}
	return -1
}

// lineOf is the 1-based line of offset off in data (line 1 when off < 0).
func lineOf(data []byte, off int) int {
	if off < 0 {
		return 1
	}
	return 1 + bytes.Count(data[:off], []byte("\n"))
}
