package spec

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/targets/api"
)

// FuzzParseProfile: any input either fails with one line naming the file,
// or gives a profile that validates.
func FuzzParseProfile(f *testing.F) {
	f.Add([]byte("name: acme\nmissing_key: 0\n"))
	f.Add([]byte(`{"name": "acme", "in_flight": 429}`))
	f.Add([]byte("name: acme\nin_flight: wait\n"))
	f.Add([]byte("name: acme\nin_flight: [409, 425]\nmismatch: [422, 409]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile(data)
		if err != nil {
			msg := err.Error()
			if strings.ContainsAny(msg, "\n\r") || !strings.HasPrefix(msg, "profile file: ") {
				t.Fatalf("error %q is not one line about the file", msg)
			}
			return
		}
		if err := api.ValidateProfile(p); err != nil {
			t.Fatalf("parsed profile does not validate: %v", err)
		}
		if _, err := api.ProfileByName(p.Name); err == nil {
			t.Fatalf("profile %q shadows a built-in one", p.Name)
		}
	})
}
