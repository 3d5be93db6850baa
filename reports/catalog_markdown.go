package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/scenarios/explore"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// CatalogCommand is the command that writes docs/catalog.md.
const CatalogCommand = "idemchaos list --markdown > docs/catalog.md"

// WriteCatalogMarkdown writes the catalog as docs/catalog.md holds it:
// the strategies (each with the scenarios that catch its flaw, and the
// anomalies they show), the scenarios, the anomalies and the profiles,
// all read from the code, and what runs against a user's own service.
func WriteCatalogMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# The catalog\n\nGenerated from the code by `%s`; do not edit (a test compares this file with what the code says).\n\n", CatalogCommand)
	mdStrategies(&b)
	mdExplores(&b)
	mdScenarios(&b)
	mdAnomalies(&b)
	mdProfiles(&b)
	fmt.Fprintf(&b, "## Your own service\n\n%s.\n", upperFirst(mdTableText(ownService())))
	_, err := io.WriteString(w, b.String())
	return err
}

func mdStrategies(b *strings.Builder) {
	b.WriteString("## Strategies\n\nThe built-in targets (`targets/strategy`). A flawed strategy must be caught by the scenarios named beside it, " +
		"with the anomalies named, and pass every other; a correct one must pass every scenario.\n\n")
	b.WriteString("| strategy | mechanism | flaw | replays from | caught by (ietf) |\n|---|---|---|---|---|\n")
	for _, s := range design.Catalog() {
		flaw := s.Flaw
		if flaw == "" {
			flaw = "none: must pass every scenario"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s |\n", s.Name, mdTableText(s.Mechanism), mdTableText(flaw), mdTableText(s.ReplayFrom), caughtBy(s.Name))
	}
	b.WriteString("\n")
}

// caughtBy lists the scenarios that catch strategy under ietf, each with
// the anomalies they declare, and those it shows on some seeds only.
func caughtBy(strategy string) string {
	var parts []string
	for _, sc := range scenarios.Names() {
		var says []string
		if as := scenarios.Expected(strategy, sc, api.IETF); len(as) > 0 {
			says = append(says, check.Join(as))
		}
		if vs := scenarios.Varies(strategy, sc); len(vs) > 0 {
			says = append(says, "on some seeds: "+check.Join(vs))
		}
		if len(says) > 0 {
			parts = append(parts, fmt.Sprintf("%s (%s)", sc, strings.Join(says, "; ")))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return mdTableText(strings.Join(parts, "; "))
}

// mdExplores says what idemchaos explore shows of each strategy: every
// order of every case holds, or which kinds of case break it and how.
func mdExplores(b *strings.Builder) {
	b.WriteString("## Every order (explore)\n\nWhat `idemchaos explore --strategy S --case all` shows ([explore.md](explore.md)): every order of two " +
		"requests of one key, each held at every point it reaches, under each kind of case (" + strings.Join(explore.KindNames(), ", ") +
		"), one replica (kill: a second, the process that replaces the killed one), the ietf profile. A kind not named holds in every order.\n\n")
	b.WriteString("| strategy | what some order shows |\n|---|---|\n")
	for _, s := range design.Catalog() {
		var parts []string
		for _, kind := range explore.KindNames() {
			if as := s.Explores[kind]; len(as) > 0 {
				parts = append(parts, fmt.Sprintf("%s (%s)", kind, strings.Join(as, ", ")))
			}
		}
		shows := "holds in every order of every case"
		if len(parts) > 0 {
			shows = strings.Join(parts, "; ")
		}
		fmt.Fprintf(b, "| `%s` | %s |\n", s.Name, mdTableText(shows))
	}
	b.WriteString("\n")
}

func mdScenarios(b *strings.Builder) {
	b.WriteString("## Scenarios\n\nTimeouts are scenario-relative, so no run waits on a production TTL.\n\n")
	b.WriteString("| scenario | what it does | reveals | your service |\n|---|---|---|---|\n")
	for _, s := range scenarios.Catalog() {
		where := "yes"
		switch {
		case s.BuiltinOnly():
			where = "built-in strategies only"
		case s.ServiceOnly:
			where = "yes, and no built-in strategy"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", s.Name, mdTableText(s.Doc), mdTableText(s.Reveals), where)
	}
	b.WriteString("\n")
}

func mdAnomalies(b *strings.Builder) {
	b.WriteString("## Anomalies\n\nWhat the checker reports (`scenarios/check`), with the short code the matrix shows.\n\n")
	b.WriteString("| code | anomaly | what happened | avoided by |\n|---|---|---|---|\n")
	for _, a := range check.Anomalies() {
		e := Explain(a)
		fmt.Fprintf(b, "| `%s` | `%s` | %s | %s |\n", a.Short(), a, mdTableText(e.What), mdTableText(e.Avoid))
	}
	b.WriteString("\n")
}

func mdProfiles(b *strings.Builder) {
	b.WriteString("## Profiles\n\nThe contract a target promises (`--profile`, or a profile file: `examples/profile-custom.yaml`).\n\n")
	b.WriteString("| profile | missing key | in flight | another payload | replay |\n|---|---|---|---|---|\n")
	for _, n := range api.ProfileNames() {
		p, _ := api.ProfileByName(n)
		fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s |\n", p.Name, missingText(p), p.InFlightSet(), p.MismatchSet(), mdTableText(replayText(p)))
	}
	b.WriteString("\n")
}

// mdTableText escapes text for a Markdown table cell: what would end the cell
// or start markup; an underscore inside a word is no emphasis and stays.
func mdTableText(s string) string {
	var b strings.Builder
	for _, r := range oneLine(s) {
		if strings.ContainsRune("\\`*|<>[]", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
