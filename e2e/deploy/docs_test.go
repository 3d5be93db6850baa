package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
)

// docPages are README.md and every page of docs/.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil || len(pages) < 10 {
		t.Fatalf("docs/: %d pages, %v", len(pages), err)
	}
	out := []string{"README.md"}
	for _, p := range pages {
		out = append(out, filepath.Join("docs", filepath.Base(p)))
	}
	return out
}

// docCommand finds an idemchaos command line in a line of a code block:
// "idemchaos ...", "go run ./cmd/idemchaos ...", after an optional "$ ".
var docCommand = regexp.MustCompile(`^\s*(?:\$ )?(?:go run \./cmd/idemchaos|(?:bin/)?idemchaos)( .*)?$`)

// docPlaceholders stand for values the reader fills in.
var docPlaceholders = strings.NewReplacer("'<printed>'", "'postgres://app@127.0.0.1:5432/pay'", "127.0.0.1:PORT", "127.0.0.1:8080")

// codeLines are the lines of a page's code blocks (indented by four
// spaces, or fenced), continuation lines joined. A fenced excerpt of a
// deployment file (its first line names it) is left out: its commands run
// with the file's own variables in TestReadmeDeployCommands.
func codeLines(page string) []string {
	var out []string
	fenced, excerpt := false, false
	lines := strings.Split(page, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			excerpt = fenced && i+1 < len(lines) && slices.Contains(deployFiles, strings.TrimPrefix(lines[i+1], "# "))
			continue
		}
		if !fenced && !strings.HasPrefix(line, "    ") || excerpt {
			continue
		}
		for strings.HasSuffix(line, `\`) && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, `\`) + " " + strings.TrimSpace(lines[i])
		}
		out = append(out, line)
	}
	return out
}

// TestDocCommands: every idemchaos command line the README and docs/
// show, run by bash with a stand-in idemchaos that records its argv, is
// one the real CLI accepts (flags with -h; run, matrix and soak with
// --dry-run: every value they name, the files too). A line with an
// elided argument ("...") is left out, and counted.
func TestDocCommands(t *testing.T) {
	checked, elided := 0, 0
	for _, page := range docPages(t) {
		var script []string
		for _, line := range codeLines(string(readRepoFile(t, page))) {
			m := docCommand.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			cmd := docPlaceholders.Replace("idemchaos" + m[1])
			if slices.Contains(strings.Fields(cmd), "...") {
				elided++
				continue
			}
			script = append(script, cmd)
		}
		if len(script) == 0 {
			continue
		}
		path := filepath.Join(t.TempDir(), "commands.sh")
		if err := os.WriteFile(path, []byte(strings.Join(script, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		env := map[string]string{scenarios.LedgerURLEnv: "postgres://u@127.0.0.1:5432/db", "LEDGER": "postgres://u@127.0.0.1:5432/db",
			"QUERY": "SELECT idempotency_key, account, amount FROM charges", "GITHUB_STEP_SUMMARY": os.DevNull}
		r := runScript(t, []string{"bash", path}, env, nil)
		calls := r.idemchaosCalls()
		if r.code != 0 || len(calls) != len(script) {
			t.Fatalf("%s: bash ran %d of %d command lines, exit %d:\n%s\n%s", page, len(calls), len(script), r.code, strings.Join(script, "\n"), r.output)
		}
		for _, c := range calls {
			if err := cliAccepts(c, env); err != nil {
				t.Errorf("%s: %v", page, err)
			}
			checked++
		}
	}
	t.Logf("%d command lines checked, %d with an elided argument left out", checked, elided)
	if checked < 50 {
		t.Errorf("%d command lines checked in README.md and docs/; want the docs' commands, at least 50", checked)
	}
}

// docLink is a Markdown link's target.
var docLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocLinks: every relative link of the README and docs/ names a file
// of the repository, so every section the README dropped stays reachable.
func TestDocLinks(t *testing.T) {
	links := 0
	for _, page := range append(docPages(t), "bench/README.md", "examples/README.md") {
		for _, m := range docLink.FindAllStringSubmatch(string(readRepoFile(t, page)), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if strings.Contains(target, "://") || target == "" {
				continue
			}
			links++
			if _, err := os.Stat(filepath.Join(repoRoot, filepath.Dir(page), target)); err != nil {
				t.Errorf("%s links to %s: %v", page, m[1], err)
			}
		}
	}
	if links < 30 {
		t.Errorf("%d relative links in the README and docs/; want the README's index at least", links)
	}
}
