package api

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseProfile: any input either fails with one line naming the file,
// or gives a profile that validates.
func FuzzParseProfile(f *testing.F) {
	f.Add([]byte("name: acme\nmissing_key: 0\n"))
	f.Add([]byte(`{"name": "acme", "in_flight": 429}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile(data)
		if err != nil {
			msg := err.Error()
			if strings.ContainsAny(msg, "\n\r") || !strings.HasPrefix(msg, "profile file: ") {
				t.Fatalf("error %q is not one line about the file", msg)
			}
			return
		}
		if err := ValidateProfile(p); err != nil {
			t.Fatalf("parsed profile does not validate: %v", err)
		}
		if _, err := ProfileByName(p.Name); err == nil {
			t.Fatalf("profile %q shadows a built-in one", p.Name)
		}
	})
}

// TestFuzzSeedsAsNamed: the seed corpus's valid-* inputs parse and its
// invalid-* ones do not.
func TestFuzzSeedsAsNamed(t *testing.T) {
	files, err := filepath.Glob("testdata/fuzz/FuzzParseProfile/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no seeds: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lit, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "go test fuzz v1\n[]byte(")
		data, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
		if !ok || err != nil {
			t.Fatalf("%s: not a []byte seed: %v", f, err)
		}
		_, err = ParseProfile([]byte(data))
		if name := filepath.Base(f); strings.HasPrefix(name, "valid-") != (err == nil) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
