// Package strictyaml decodes the files a user hands idemchaos (scenario
// files, profile files) strictly: one YAML document (a JSON object is one
// too) into a struct with yaml tags, where an unknown or repeated field, a
// value of the wrong type, a null, an alias or a second document is an
// error, fields left out take their `default:"..."` tag, and every error is
// one line naming the field path and the line of the file. It is internal:
// the file formats are documented, this decoder is not a stable API.
package strictyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxBytes bounds a file.
const MaxBytes = 1 << 20

// Decode decodes one YAML document (a JSON object is one too) into
// v, a pointer to a struct whose fields carry yaml tags. It is the decoder of
// every file a user hands idemchaos, and it is strict: an unknown or repeated
// field, a value of the wrong type (a string where a number is wanted, a
// float where an integer is), a null, an alias or a second document is an
// error. Fields left out keep their `default:"..."` tag, else their current
// value. Every error is one line that names the field path (traffic.keys,
// faults[1].share) and, when known, the line of the file; it never panics.
func Decode(data []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil { // the YAML parser reads untrusted input
			err = fmt.Errorf("the YAML parser failed: %s", oneLine(fmt.Sprint(r)))
		}
	}()
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("decode: want a pointer to a struct, got %T", v)
	}
	if len(data) > MaxBytes {
		return fmt.Errorf("the file has %d bytes; at most %d", len(data), MaxBytes)
	}
	root, err := parseOne(data)
	if err != nil {
		return err
	}
	if err := setDefaults(rv.Elem()); err != nil {
		return err
	}
	return decodeNode(root, rv.Elem(), "")
}

// parseOne parses data into the root node of its only document.
func parseOne(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the file is empty")
		}
		return nil, syntaxError(err, data)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, fmt.Errorf("line %d: a second YAML document; a file holds one", max(next.Line, 1))
	case !errors.Is(err, io.EOF):
		return nil, syntaxError(err, data)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, errors.New("the file holds no YAML document")
	}
	return doc.Content[0], nil
}

// oneLine joins the lines of s.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ; ")), " ")
}

// ReadFile reads a user's file, at most MaxBytes of it (one more
// byte, so that the decoder sees the file is too big). The error is one
// line that does not repeat the path.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, pathError(err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return nil, pathError(err)
	}
	return data, nil
}

func pathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return errors.New(oneLine(pe.Err.Error()))
	}
	return errors.New(oneLine(err.Error()))
}
