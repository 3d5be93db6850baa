package reports

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// WriteCatalog lists the strategies (with the scenarios that catch each
// flaw), the scenarios, the profiles, and what runs against a user's own
// service: what `idemchaos list` prints.
func WriteCatalog(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STRATEGIES\tmechanism\tflaw (caught by)")
	for _, s := range design.Catalog() {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", s.Name, s.Mechanism, flaw(s))
	}
	fmt.Fprintln(tw, "SCENARIOS\twhat it does\treveals")
	for _, s := range scenarios.Catalog() {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", s.Name, s.Doc, s.Reveals)
	}
	fmt.Fprintln(tw, "PROFILES\tmissing key / in flight / mismatch\treplay")
	for _, n := range api.ProfileNames() {
		p, _ := api.ProfileByName(n)
		fmt.Fprintf(tw, "  %s\t%s / %d / %d\t%s\n", p.Name, missingText(p), p.InFlight, p.Mismatch, replayText(p))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "YOUR OWN SERVICE (--target-url): %s\n", ownService())
	return err
}

func flaw(s design.Info) string {
	if s.Flaw == "" {
		return "none: must pass every scenario"
	}
	var caught []string
	for _, sc := range scenarios.Names() {
		if len(scenarios.Expected(s.Name, sc, api.IETF)) > 0 {
			caught = append(caught, sc)
		}
	}
	if len(caught) == 0 {
		return s.Flaw + " (its scenario is not in this catalog yet)"
	}
	return fmt.Sprintf("%s (%s)", s.Flaw, strings.Join(caught, ", "))
}

func missingText(p api.Profile) string {
	if p.MissingKey == 0 {
		return "allowed"
	}
	return fmt.Sprint(p.MissingKey)
}

func replayText(p api.Profile) string {
	s := "identical status and body"
	if p.ReplayHeader != "" {
		s += ", header " + p.ReplayHeader
	}
	if p.ReplayErrors {
		s += "; 5xx may be replayed"
	} else {
		s += "; a 5xx is never replayed"
	}
	if p.RedecideRefusals {
		s += "; a decline (402) is decided again"
	} else {
		s += "; a decline (402) is replayed"
	}
	return s
}

// ownService says which scenarios run against a user's service as is
// (those that adapt to its charge time if it is slow enough), which with
// store proxies, replica URLs, its TTLs or a top-up request declared, and
// which with the failpoint protocol.
func ownService() string {
	one := []string{"http://127.0.0.1:1"}
	three := []string{"http://127.0.0.1:1", "http://127.0.0.1:2", "http://127.0.0.1:3"}
	short := 100 * time.Millisecond
	bare := scenarios.External{URLs: one, ClaimTimeout: scenarios.DefaultClaimTimeout}
	helped := scenarios.External{URLs: three, PostgresProxy: "pg", RedisProxy: "redis", ClaimTimeout: short, KeyTTL: short,
		TopUp: &scenarios.TopUp{Path: "/top-ups"}}
	protocol := bare
	protocol.Failpoints = true
	groups := make([][]string, 4)
	for _, sc := range scenarios.Catalog() {
		switch {
		case bare.Skip(sc) == "" && sc.Outlast:
			groups[0] = append(groups[0], fmt.Sprintf("%s (if a charge takes %s or more: measured first)", sc.Name, scenarios.MinOutlast))
		case bare.Skip(sc) == "":
			groups[0] = append(groups[0], sc.Name)
		case helped.Skip(sc) == "":
			groups[1] = append(groups[1], sc.Name)
		case protocol.Skip(sc) == "":
			groups[2] = append(groups[2], sc.Name)
		default:
			groups[3] = append(groups[3], sc.Name)
		}
	}
	out := "runs " + strings.Join(groups[0], ", ")
	labels := []string{"; with store proxies (--postgres-proxy, --redis-proxy), replica URLs, a short --claim-timeout or --key-ttl, or a top-up request (--topup-path) also ",
		"; with the failpoint protocol (--failpoints, docs/failpoints.md) also ",
		"; never: "}
	for i, l := range labels {
		if len(groups[i+1]) > 0 {
			out += l + strings.Join(groups[i+1], ", ")
		}
	}
	return out
}
