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
// service: what `idemchaos list` prints. It is a table when that fits the
// view (or v.Wide), else each entry with its fields under it, wrapped.
func WriteCatalog(w io.Writer, v View) error {
	sections := catalogSections()
	if v.Wide || v.fits(catalogWidth(sections)) {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, s := range sections {
			for _, r := range s.table() {
				fmt.Fprintln(tw, strings.Join(r, "\t"))
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	} else {
		for _, s := range sections {
			if err := s.writeList(w, v.Width); err != nil {
				return err
			}
		}
	}
	_, err := io.WriteString(w, wrapWords("YOUR OWN SERVICE (--target-url): ", "  ", ownService(), v.Width))
	return err
}

// section is one part of the catalog: a title, the labels of its fields,
// and a row per entry (its name, then a value per field).
type section struct {
	title  string
	labels []string
	rows   [][]string
}

func catalogSections() []section {
	st := section{title: "STRATEGIES", labels: []string{"mechanism", "flaw", "caught by"}}
	for _, s := range design.Catalog() {
		flaw, caught := flaw(s)
		st.rows = append(st.rows, []string{s.Name, s.Mechanism, flaw, caught})
	}
	sc := section{title: "SCENARIOS", labels: []string{"what it does", "reveals"}}
	for _, s := range scenarios.Catalog() {
		sc.rows = append(sc.rows, []string{s.Name, s.Doc, s.Reveals})
	}
	pr := section{title: "PROFILES", labels: []string{"missing key / in flight / mismatch", "replay"}}
	for _, n := range api.ProfileNames() {
		p, _ := api.ProfileByName(n)
		pr.rows = append(pr.rows, []string{p.Name, fmt.Sprintf("%s / %s / %s", missingText(p), p.InFlightSet(), p.MismatchSet()), replayText(p)})
	}
	return []section{st, sc, pr}
}

// catalogWidth is how wide the catalog's table layout is (tabwriter, two
// spaces between columns, every section's columns aligned together).
func catalogWidth(sections []section) int {
	var cols []int
	for _, s := range sections {
		for _, r := range s.table() {
			for i, c := range r {
				if i == len(cols) {
					cols = append(cols, 0)
				}
				cols[i] = max(cols[i], width(c))
			}
		}
	}
	n := 0
	for _, c := range cols {
		n += c + 2
	}
	return n - 2
}

// table is the section as table rows: the title over the labels, then the
// entries indented.
func (s section) table() [][]string {
	head := append([]string{s.title}, s.labels...)
	if s.title == "STRATEGIES" { // one column: "flaw (caught by)"
		head = []string{s.title, s.labels[0], "flaw (caught by)"}
	}
	out := [][]string{head}
	for _, r := range s.rows {
		row := append([]string{"  " + r[0]}, r[1:]...)
		if s.title == "STRATEGIES" {
			row = []string{row[0], r[1], joinCaught(r[2], r[3])}
		}
		out = append(out, row)
	}
	return out
}

// writeList writes each entry's name, then its fields as "label: value"
// under one another, wrapped at limit two columns in from the label.
func (s section) writeList(w io.Writer, limit int) error {
	name := 0
	for _, r := range s.rows {
		name = max(name, width(r[0]))
	}
	var b strings.Builder
	b.WriteString(s.title + "\n")
	for _, r := range s.rows {
		for i, label := range s.labels {
			if r[i+1] == "" {
				continue
			}
			lead := strings.Repeat(" ", name+4)
			if i == 0 {
				lead = "  " + pad(r[0], name) + "  "
			}
			b.WriteString(wrapWords(lead+label+": ", strings.Repeat(" ", name+6), r[i+1], limit))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// flaw is a strategy's flaw and the scenarios that catch it ("" for none).
func flaw(s design.Info) (flaw, caught string) {
	if s.Flaw == "" {
		return "none: must pass every scenario", ""
	}
	var names []string
	for _, sc := range scenarios.Names() {
		if len(scenarios.Expected(s.Name, sc, api.IETF)) > 0 {
			names = append(names, sc)
		}
	}
	if len(names) == 0 {
		return s.Flaw, "its scenario is not in this catalog yet"
	}
	return s.Flaw, strings.Join(names, ", ")
}

// joinCaught is the table's "flaw (caught by)".
func joinCaught(flaw, caught string) string {
	if caught == "" {
		return flaw
	}
	return flaw + " (" + caught + ")"
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
	helped := scenarios.External{URLs: three, PostgresProxy: "pg", RedisProxy: "redis", DynamoDBProxy: "dynamodb", ClaimTimeout: short, KeyTTL: short,
		TopUp: &scenarios.TopUp{Path: "/top-ups"}}
	protocol := bare
	protocol.Failpoints = true
	both := helped
	both.Failpoints = true
	groups := make([][]string, 5)
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
		case both.Skip(sc) == "":
			groups[3] = append(groups[3], sc.Name)
		default:
			groups[4] = append(groups[4], sc.Name)
		}
	}
	out := "runs " + strings.Join(groups[0], ", ")
	labels := []string{"; with store proxies (--postgres-proxy, --redis-proxy, --dynamodb-proxy), replica URLs, a short --claim-timeout or --key-ttl, or a top-up request (--topup-path) also ",
		"; with the failpoint protocol (--failpoints, docs/failpoints.md) also ",
		"; with both, a Postgres proxy and the failpoint protocol, also ",
		"; built-in strategies only (replicated stores the harness starts, kills and crashes itself): "}
	for i, l := range labels {
		if len(groups[i+1]) > 0 {
			out += l + strings.Join(groups[i+1], ", ")
		}
	}
	return out
}
