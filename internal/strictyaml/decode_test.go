package strictyaml

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type inner struct {
	Share float64 `yaml:"share" default:"1"`
	Try   int     `yaml:"try" default:"1"`
}

type doc struct {
	Name  string   `yaml:"name"`
	Keys  int      `yaml:"keys" default:"10"`
	On    bool     `yaml:"on"`
	Wait  dur      `yaml:"wait" default:"2s"`
	Sub   inner    `yaml:"sub"`
	List  []inner  `yaml:"list"`
	Tags  []string `yaml:"tags"`
	Local string   `yaml:"-"`
}

// dur reads a Go duration through encoding.TextUnmarshaler.
type dur time.Duration

func (d *dur) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	*d = dur(v)
	return err
}

func TestDecodeDefaultsAndValues(t *testing.T) {
	var d doc
	err := Decode([]byte("name: a\nsub: {share: 0.5}\nlist:\n  - {try: 2}\ntags: [x, y]\nwait: 250ms\n"), &d)
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "a" || d.Keys != 10 || d.Sub.Share != 0.5 || d.Sub.Try != 1 || len(d.List) != 1 ||
		d.List[0].Try != 2 || d.List[0].Share != 1 || len(d.Tags) != 2 || time.Duration(d.Wait) != 250*time.Millisecond {
		t.Fatalf("decoded %+v", d)
	}
	var j doc
	if err := Decode([]byte(`{"name": "a", "keys": 3}`), &j); err != nil || j.Keys != 3 || time.Duration(j.Wait) != 2*time.Second {
		t.Fatalf("json: %+v, %v", j, err)
	}
}

func TestDecodeRejects(t *testing.T) {
	cases := []struct{ in, want string }{
		{"name: a\nkeyz: 1\n", "keyz: unknown field (known: name, keys, on, wait, sub, list, tags) (line 2)"},
		{"name: a\nname: b\n", "name: given twice (lines 1 and 2)"},
		{"keys: ten\n", `keys: want an integer, got "ten" (line 1)`},
		{"keys: 1.5\n", "keys: want an integer"},
		{"on: \"true\"\n", "on: want true or false"},
		{"name: [a]\n", "name: want a string, got a list"},
		{"name: ~\n", "name:"},
		{"sub: {share: 0.5, shar: 1}\n", "sub.shar: unknown field"},
		{"list: [{try: x}]\n", "list[0].try: want an integer"},
		{"name: &x a\ntags: [*x]\n", "alias"},
		{"name: a\n---\nname: b\n", "a second YAML document"},
		{"  \n# nothing\n", "the file is empty"},
		{"plain\n", `top level: want a mapping of fields, got "plain" (line 1)`},
		{"Local: x\n", "Local: unknown field"},
	}
	for _, c := range cases {
		var d doc
		err := Decode([]byte(c.in), &d)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.ContainsAny(err.Error(), "\n\r") {
			t.Errorf("%q: error %v; want one line containing %q", c.in, err, c.want)
		}
	}
}

func TestDecodeBounds(t *testing.T) {
	var d doc
	big := "name: " + strings.Repeat("x", MaxBytes) + "\n"
	if err := Decode([]byte(big), &d); err == nil || !strings.Contains(err.Error(), "at most 1048576") {
		t.Fatalf("big file: %v", err)
	}
	if err := Decode([]byte("name: a\n"), d); err == nil {
		t.Fatal("accepted a non-pointer")
	}
	weird := "name: a\n\"odd\\nkey\": 1\n"
	if err := Decode([]byte(weird), &d); err == nil || !strings.HasPrefix(err.Error(), `"odd\nkey": unknown field`) {
		t.Fatalf("odd key: %v", err)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.yaml")
	if err := os.WriteFile(path, []byte(strings.Repeat("x", MaxBytes+10)), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ReadFile(path)
	if err != nil || len(b) != MaxBytes+1 {
		t.Fatalf("read %d bytes, %v; want the limit and one more", len(b), err)
	}
	if _, err := ReadFile(filepath.Join(dir, "absent.yaml")); err == nil || err.Error() != "no such file or directory" {
		t.Fatalf("absent: %v", err)
	}
}

// limit is an integer or the word none, read through ScalarUnmarshaler.
type limit struct {
	n    int
	none bool
}

func (l *limit) UnmarshalScalar(tag, text, got string) error {
	*l = limit{} // the field holds its default
	switch {
	case tag == "!!int":
		_, err := fmt.Sscan(text, &l.n)
		return err
	case tag == "!!str" && text == "none":
		l.none = true
		return nil
	}
	return fmt.Errorf("want an integer or none, got %s (%s)", got, tag)
}

func TestDecodeScalarUnmarshaler(t *testing.T) {
	type withLimit struct {
		Limit limit `yaml:"limit" default:"3"`
	}
	cases := []struct {
		in   string
		want limit
		err  string
	}{
		{in: "{}", want: limit{n: 3}},
		{in: "limit: 7\n", want: limit{n: 7}},
		{in: "limit: none\n", want: limit{none: true}},
		{in: `{"limit": "none"}`, want: limit{none: true}},
		{in: "limit: \"7\"\n", err: `limit: want an integer or none, got "7" (!!str) (line 1)`},
		{in: "limit: [7]\n", err: "limit: want an integer or none, got a list (!!seq) (line 1)"},
		{in: "limit: ~\n", err: "limit: want an integer or none, got null (!!null) (line 1)"},
		{in: "limit: true\n", err: `limit: want an integer or none, got "true" (!!bool) (line 1)`},
	}
	for _, c := range cases {
		var d withLimit
		err := Decode([]byte(c.in), &d)
		switch {
		case c.err == "" && (err != nil || d.Limit != c.want):
			t.Errorf("%q: %+v, %v; want %+v", c.in, d.Limit, err, c.want)
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("%q: error %v; want %s", c.in, err, c.err)
		}
	}
}

// limits is an integer or a list of them, read through ListUnmarshaler.
type limits []int

func (l *limits) UnmarshalScalar(tag, text, got string) error {
	var one limit
	err := one.UnmarshalScalar(tag, text, got)
	*l = limits{one.n}
	return err
}

func (l *limits) UnmarshalList(items []Scalar) error {
	*l = nil
	if len(items) == 0 {
		return fmt.Errorf("want at least one")
	}
	for i, it := range items {
		if it.Tag != "!!int" {
			return &ItemError{Index: i, Err: fmt.Errorf("want an integer, got %s (%s)", it.Got, it.Tag)}
		}
		var n int
		_, _ = fmt.Sscan(it.Text, &n)
		*l = append(*l, n)
	}
	return nil
}

func TestDecodeListUnmarshaler(t *testing.T) {
	type withLimits struct {
		Limits limits `yaml:"limits" default:"3"`
	}
	cases := []struct {
		in   string
		want string
		err  string
	}{
		{in: "{}", want: "[3]"},
		{in: "limits: 7\n", want: "[7]"},
		{in: "limits: [7, 8]\n", want: "[7 8]"},
		{in: "limits:\n  - 7\n  - 9\n", want: "[7 9]"},
		{in: `{"limits": [1]}`, want: "[1]"},
		{in: "limits: []\n", err: "limits: want at least one (line 1)"},
		{in: "limits:\n  - 7\n  - seven\n", err: `limits[1]: want an integer, got "seven" (!!str) (line 3)`},
		{in: "limits: [7, {a: 1}]\n", err: "limits[1]: want an integer, got a mapping (!!map) (line 1)"},
		{in: "limits: [7, ~]\n", err: "limits[1]: want an integer, got null (!!null) (line 1)"},
		{in: "limits: {a: 1}\n", err: "limits: want an integer or none, got a mapping (!!map) (line 1)"},
	}
	for _, c := range cases {
		var d withLimits
		err := Decode([]byte(c.in), &d)
		switch {
		case c.err == "" && (err != nil || fmt.Sprint([]int(d.Limits)) != c.want):
			t.Errorf("%q: %v, %v; want %s", c.in, d.Limits, err, c.want)
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("%q: error %v; want %s", c.in, err, c.err)
		}
	}
}
