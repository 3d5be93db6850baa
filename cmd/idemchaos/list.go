package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

func cmdList(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	if err := parse(fs, args); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
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
	_, err := fmt.Fprintf(stdout, "YOUR OWN SERVICE (--target-url): %s\n", ownService())
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
	return s
}

// ownService says which scenarios run against a user's service as is, and
// what the others need.
func ownService() string {
	bare := scenarios.External{URLs: []string{"http://127.0.0.1:1"}}
	var runs, more []string
	for _, sc := range scenarios.Catalog() {
		if bare.Skip(sc) == "" {
			runs = append(runs, sc.Name)
		} else if sc.Internals == "" {
			more = append(more, sc.Name)
		}
	}
	return fmt.Sprintf("runs %s; with store proxies or replica URLs also %s; the rest need the target's internals",
		strings.Join(runs, ", "), strings.Join(more, ", "))
}
