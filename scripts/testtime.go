//go:build ignore

// testtime reads `go test -json` output and prints where the time went: the
// packages by wall time, the slowest top-level tests, and the number of
// tests and subtests run (passed, failed, skipped), as Markdown tables.
//
//	go test -json -race -count=1 ./... > /tmp/module.json
//	go run scripts/testtime.go -n 25 /tmp/module.json /tmp/e2e.json
//
// With go test -exec scripts/cputime, each package's row also shows the CPU
// time its test binary and the processes it waited for used.
//
// A test's time is the wall time from its start (for a parallel test: from
// when t.Parallel released it) to its end, its parallel subtests included;
// go test's own Elapsed leaves those out (a parent of parallel subtests
// shows 0 s). Package times are the test binary's whole run (TestMain's
// builds and stores included), not the compile before it. docs/testing.md
// says how the suite was measured.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// event is the part of a test2json event read here.
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Time    time.Time
	Output  string
}

// tally is what the events of a run add up to.
type tally struct {
	packages map[string]float64   // package → elapsed, of its pass or fail
	cpu      map[string]float64   // package → CPU seconds, from scripts/cputime
	failed   map[string]bool      // packages that failed
	tests    map[string]float64   // "package Test" → wall time (top-level only)
	resumed  map[string]time.Time // "package Test" → its run or cont event
	subtests map[string]int       // "package Test" → subtests run under it
	outcome  map[string]string    // "package Test/sub" → pass, fail or skip

	started, ended map[string]time.Time // package → its first event (its binary started), its pass or fail
	first, last    time.Time            // of all the files' events
}

func main() {
	n := flag.Int("n", 25, "how many of the slowest tests to list")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: go run scripts/testtime.go [-n 25] FILE.json...")
		os.Exit(2)
	}
	t := tally{packages: map[string]float64{}, cpu: map[string]float64{}, failed: map[string]bool{}, tests: map[string]float64{},
		resumed: map[string]time.Time{}, subtests: map[string]int{},
		outcome: map[string]string{}, started: map[string]time.Time{}, ended: map[string]time.Time{}}
	for _, name := range flag.Args() {
		if err := t.read(name); err != nil {
			fmt.Fprintf(os.Stderr, "testtime: %s: %v\n", name, err)
			os.Exit(1)
		}
	}
	t.print(os.Stdout, *n)
}

// read adds the events of one go test -json file; lines that are not
// JSON (a build failure's text) are passed over.
func (t *tally) read(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Package == "" {
			continue
		}
		t.add(e)
	}
	return sc.Err()
}

func (t *tally) add(e event) {
	if _, ok := t.started[e.Package]; !ok {
		t.started[e.Package] = e.Time
	}
	if t.first.IsZero() || e.Time.Before(t.first) {
		t.first = e.Time
	}
	if e.Time.After(t.last) {
		t.last = e.Time
	}
	if cpu, ok := strings.CutPrefix(e.Output, cpuLine); ok && e.Test == "" {
		t.cpu[e.Package] = cpuSeconds(cpu)
	}
	top, _, sub := strings.Cut(e.Test, "/")
	topKey := e.Package + " " + top
	if (e.Action == "run" || e.Action == "cont") && !sub {
		t.resumed[topKey] = e.Time
	}
	if e.Action != "pass" && e.Action != "fail" && e.Action != "skip" {
		return
	}
	if e.Test == "" {
		if e.Action == "skip" { // no test files
			return
		}
		t.packages[e.Package] = e.Elapsed
		t.ended[e.Package] = e.Time
		t.failed[e.Package] = e.Action == "fail"
		return
	}
	key := e.Package + " " + e.Test
	t.outcome[key] = e.Action
	if sub {
		t.subtests[topKey]++
		return
	}
	t.tests[key] = e.Elapsed
	if from, ok := t.resumed[key]; ok {
		t.tests[key] = max(e.Elapsed, e.Time.Sub(from).Seconds())
	}
}

func (t *tally) print(w io.Writer, n int) {
	var total float64
	for _, s := range t.packages {
		total += s
	}
	fmt.Fprintf(w, "%d packages, %.0f s of test binaries in all; from the first start to the last end %.0f s.\n\n",
		len(t.packages), total, t.last.Sub(t.first).Seconds())
	fmt.Fprintln(w, "| package | s | CPU s | ran from (s) | to (s) |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|")
	for _, p := range byTime(t.packages) {
		mark := ""
		if t.failed[p] {
			mark = " (FAIL)"
		}
		from, to := t.started[p].Sub(t.first).Seconds(), t.ended[p].Sub(t.first).Seconds()
		cpu := "-"
		if c, ok := t.cpu[p]; ok {
			cpu = fmt.Sprintf("%.1f", c)
		}
		fmt.Fprintf(w, "| %s%s | %.1f | %s | %.0f | %.0f |\n", short(p), mark, t.packages[p], cpu, from, to)
	}
	fmt.Fprintf(w, "\nThe %d slowest tests:\n\n", n)
	fmt.Fprintln(w, "| test | package | subtests | s |")
	fmt.Fprintln(w, "|---|---|---:|---:|")
	for i, k := range byTime(t.tests) {
		if i == n {
			break
		}
		pkg, test, _ := strings.Cut(k, " ")
		fmt.Fprintf(w, "| %s | %s | %d | %.1f |\n", test, short(pkg), t.subtests[k], t.tests[k])
	}
	counts := map[string][2]int{} // action → top-level, subtests
	for k, a := range t.outcome {
		c := counts[a]
		if _, test, _ := strings.Cut(k, " "); strings.Contains(test, "/") {
			c[1]++
		} else {
			c[0]++
		}
		counts[a] = c
	}
	fmt.Fprintln(w, "\n| tests | top-level | subtests |")
	fmt.Fprintln(w, "|---|---:|---:|")
	for _, a := range []string{"pass", "fail", "skip"} {
		fmt.Fprintf(w, "| %s | %d | %d |\n", a, counts[a][0], counts[a][1])
	}
}

// cpuLine starts the line scripts/cputime prints after a test binary:
// "testtime-cpu: 0m12.611s 0m10.630s" (user, system), as bash's times.
const cpuLine = "testtime-cpu: "

// cpuSeconds is the user plus system time of a cpuLine's rest; 0 if it
// cannot be read.
func cpuSeconds(s string) float64 {
	var sum float64
	for f := range strings.FieldsSeq(s) {
		var m, sec float64
		if _, err := fmt.Sscanf(f, "%fm%fs", &m, &sec); err != nil {
			return 0
		}
		sum += 60*m + sec
	}
	return sum
}

// byTime is the keys of m, slowest first.
func byTime(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

// short is a package path without the module's.
func short(pkg string) string {
	if s, ok := strings.CutPrefix(pkg, "github.com/idemchaos/idemchaos/"); ok {
		return s
	}
	if pkg == "github.com/idemchaos/idemchaos" {
		return "(root)"
	}
	return pkg
}
