package strategy

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// TestEveryDesignIsBuilt: the implementations and the design catalog name
// the same strategies; adding one to either alone fails here.
func TestEveryDesignIsBuilt(t *testing.T) {
	if got, want := slices.Sorted(maps.Keys(builders)), slices.Sorted(slices.Values(design.Names())); !slices.Equal(got, want) {
		t.Fatalf("implementations %v; designs %v", got, want)
	}
}

func TestNewRefuses(t *testing.T) {
	if _, err := New("no-such", Deps{}); err == nil || !strings.Contains(err.Error(), "unknown strategy") {
		t.Fatalf("unknown strategy: %v", err)
	}
	for _, info := range design.Catalog() {
		_, err := New(info.Name, Deps{})
		want := "needs a Postgres pool"
		if info.Redis {
			want = "needs Redis"
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s without stores: %v; want %q", info.Name, err, want)
		}
	}
}
