package rundir

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/explore"
)

// Shards are the run directories of the N shards of one run (matrix
// --shard K/N, soak --shard K/N), read and checked: every shard once, all
// of the same run, each finished. Write joins them into one run directory.
type Shards struct {
	shards []shard  // by K
	cells  []placed // every cell of the run, in the unsharded order
	// explored are the cases of an exploration, in the order planned.
	explored []explore.Result
	doc      results.Document
}

// shard is one shard's run directory.
type shard struct {
	dir string // as given
	doc results.Document
}

// placed is a cell of the merged run and where it comes from.
type placed struct {
	from   *shard
	result scenarios.Result
	rank   [3]int // its place in the unsharded order
}

// ReadShards reads the run directories of a run's shards and checks that
// they are that run, whole: each is a finished shard (every cell complete,
// every cell in its document and the other way round), all record the same
// run (command, N and digest of the work), no K twice and none missing,
// no cell twice. Any error is one line naming the directory at fault (or
// the shards missing).
func ReadShards(dirs []string) (*Shards, error) {
	if len(dirs) == 0 {
		return nil, errors.New("no run directories given: name every shard's --out directory")
	}
	m := &Shards{}
	byK := map[int]*shard{}
	given := map[string]string{}
	for _, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", dir, err)
		}
		if first, ok := given[abs]; ok {
			also := ""
			if first != dir {
				also = " (as " + first + " too)"
			}
			return nil, fmt.Errorf("%s is given twice%s", dir, also)
		}
		given[abs] = dir
		s, err := readShard(dir)
		if err != nil {
			return nil, err
		}
		if len(m.shards) > 0 {
			if err := sameRun(&m.shards[0], s); err != nil {
				return nil, err
			}
		}
		if other, ok := byK[s.doc.Shard.K]; ok {
			return nil, fmt.Errorf("%s: shard %s again (%s is shard %s too)", dir, s.doc.Shard.Shard, other.dir, other.doc.Shard.Shard)
		}
		m.shards = append(m.shards, *s)
		byK[s.doc.Shard.K] = s
	}
	if err := missing(m.shards); err != nil {
		return nil, err
	}
	slices.SortFunc(m.shards, func(a, b shard) int { return cmp.Compare(a.doc.Shard.K, b.doc.Shard.K) })
	if err := m.place(); err != nil {
		return nil, err
	}
	if err := m.placeExplorations(); err != nil {
		return nil, err
	}
	return m, m.document()
}

// readShard reads one shard's directory and checks it on its own.
func readShard(dir string) (*shard, error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("%s: no such directory", dir)
	case err != nil:
		return nil, fmt.Errorf("%s: %v", dir, err)
	case !fi.IsDir():
		return nil, fmt.Errorf("%s is not a directory (want a shard's run directory)", dir)
	case !Marked(dir):
		return nil, fmt.Errorf("%s is not a run directory (no %s in it)", dir, MarkFile)
	}
	doc, err := ReadDocument(dir)
	if errors.Is(err, ErrNoDocument) {
		return nil, fmt.Errorf("%s: the shard stopped before it finished; run it again into a new directory", err)
	}
	if err != nil {
		return nil, err
	}
	s := &shard{dir: dir, doc: doc}
	rec := doc.Shard
	switch {
	case rec == nil && len(doc.Merged) > 0:
		return nil, fmt.Errorf("%s is a merged run already, not a shard", dir)
	case rec == nil:
		return nil, fmt.Errorf("%s is not a shard: its %s run had no --shard", dir, doc.Command)
	case rec.N < 1 || rec.N > scenarios.MaxShards || rec.K < 1 || rec.K > rec.N:
		return nil, fmt.Errorf("%s: %s: shard %s is out of range", dir, DocumentFile, rec.Shard)
	case rec.Interrupted:
		return nil, fmt.Errorf("%s: shard %s was interrupted; run it again into a new directory", dir, rec.Shard)
	case doc.Command == "matrix" && len(doc.Results) != rec.Size(rec.Cells):
		return nil, fmt.Errorf("%s: shard %s lists %d %s; its share of the run's %d cells is %d", dir, rec.Shard,
			len(doc.Results), plural("cell", len(doc.Results)), rec.Cells, rec.Size(rec.Cells))
	case doc.Command == "explore" && len(doc.Explorations) != rec.Size(rec.Cells):
		return nil, fmt.Errorf("%s: shard %s lists %d %s; its share of the exploration's %d cases is %d", dir, rec.Shard,
			len(doc.Explorations), plural("case", len(doc.Explorations)), rec.Cells, rec.Size(rec.Cells))
	}
	return s, s.checkCells()
}

// checkCells checks that the shard's cells are exactly those of its
// document, each finished.
func (s *shard) checkCells() error {
	dirs, err := Cells(s.dir)
	if err != nil && len(s.doc.Results) > 0 {
		return err
	}
	listed := map[string]bool{}
	for _, d := range dirs {
		listed[d] = false
	}
	for _, r := range s.doc.Results {
		d := resultDir(s.dir, r)
		used, ok := listed[d]
		switch {
		case !ok:
			return fmt.Errorf("%s: %s lists %s / %s seed %d, but %s holds no such cell", s.dir, DocumentFile,
				r.Strategy, r.Scenario, r.Seed, s.dir)
		case used:
			return fmt.Errorf("%s: %s lists %s / %s seed %d twice", s.dir, DocumentFile, r.Strategy, r.Scenario, r.Seed)
		}
		listed[d] = true
	}
	var unfinished, unlisted []string
	for _, d := range dirs {
		rel, _ := filepath.Rel(s.dir, d)
		switch {
		case !Complete(d):
			unfinished = append(unfinished, rel)
		case !listed[d]:
			unlisted = append(unlisted, rel)
		}
	}
	switch {
	case len(unfinished) > 0:
		return fmt.Errorf("%s: shard %s was interrupted: %s did not finish; run it again into a new directory",
			s.dir, s.doc.Shard.Shard, some(unfinished))
	case len(unlisted) > 0:
		return fmt.Errorf("%s: %s is not in its %s", s.dir, some(unlisted), DocumentFile)
	}
	return nil
}

// resultDir is the directory of a result's cell under root.
func resultDir(root string, r scenarios.Result) string {
	return CellDir(root, scenarios.Cell{Strategy: r.Strategy, Scenario: r.Scenario, Seed: r.Seed})
}

// some names the first of names, and how many more there are.
func some(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return fmt.Sprintf("%s (and %d more cells)", names[0], len(names)-1)
}

// sameRun checks that s is a shard of the same run as first.
func sameRun(first, s *shard) error {
	a, b := first.doc.Shard, s.doc.Shard
	switch {
	case s.doc.Command != first.doc.Command:
		return fmt.Errorf("%s: a %s shard, and %s a %s shard: not shards of one run", s.dir, s.doc.Command, first.dir, first.doc.Command)
	case b.N != a.N:
		return fmt.Errorf("%s: shard %s, and %s shard %s: shards of different runs (%d and %d shards)", s.dir, b.Shard,
			first.dir, a.Shard, b.N, a.N)
	case b.Digest != a.Digest || b.Cells != a.Cells:
		return fmt.Errorf("%s: shard %s of another run than %s (other cells or settings: digest %.12s, not %.12s)", s.dir, b.Shard,
			first.dir, b.Digest, a.Digest)
	}
	return nil
}

// missing names the shards not given: "shards 1/3 and 3/3 given; 2/3 is missing".
func missing(shards []shard) error {
	n := shards[0].doc.Shard.N
	have := map[int]bool{}
	for _, s := range shards {
		have[s.doc.Shard.K] = true
	}
	var got, lack []string
	for k := 1; k <= n; k++ {
		name := scenarios.Shard{K: k, N: n}.String()
		if have[k] {
			got = append(got, name)
		} else {
			lack = append(lack, name)
		}
	}
	switch {
	case len(lack) == 0:
		return nil
	case len(lack) == 1:
		return fmt.Errorf("%s %s given; %s is missing", plural("shard", len(got)), and(got), lack[0])
	}
	return fmt.Errorf("%s %s given; %s are missing", plural("shard", len(got)), and(got), and(lack))
}

func plural(word string, n int) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// and is "a", "a and b", "a, b and c"; at most 10 names, then "and N more".
func and(names []string) string {
	if len(names) > 10 {
		return strings.Join(names[:9], ", ") + fmt.Sprintf(" and %d more", len(names)-9)
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// place puts every shard's cells in the unsharded order: a matrix's by its
// axes (strategy, then scenario, then seed, as the first shard records
// them); a soak's by round (shard K's j-th round, from 0, is round
// j*N + K of the soak), then as the shard listed the round's cells.
func (m *Shards) place() error {
	seen := map[string]*shard{}
	for i := range m.shards {
		s := &m.shards[i]
		rec := s.doc.Shard
		round := map[uint64]int{}
		for j, seed := range s.doc.Seeds {
			round[seed] = j*rec.N + rec.K
		}
		for at, r := range s.doc.Results {
			key := fmt.Sprintf("%s / %s seed %d", r.Strategy, r.Scenario, r.Seed)
			if other, ok := seen[key]; ok {
				return fmt.Errorf("%s: %s is in shard %s (%s) too", s.dir, key, other.doc.Shard.Shard, other.dir)
			}
			seen[key] = s
			p := placed{from: s, result: r, rank: [3]int{round[r.Seed], at, 0}}
			if s.doc.Command != "soak" {
				var err error
				if p.rank, err = m.axisRank(r); err != nil {
					return fmt.Errorf("%s: %s %v", s.dir, key, err)
				}
			}
			m.cells = append(m.cells, p)
		}
	}
	slices.SortStableFunc(m.cells, func(a, b placed) int {
		return cmp.Or(cmp.Compare(a.rank[0], b.rank[0]), cmp.Compare(a.rank[1], b.rank[1]), cmp.Compare(a.rank[2], b.rank[2]))
	})
	return nil
}

// placeExplorations puts the cases of an exploration's shards in the
// order the exploration planned them (the shard record's), each once.
func (m *Shards) placeExplorations() error {
	order := m.shards[0].doc.Shard.Scenarios
	from := map[string]*shard{}
	for i := range m.shards {
		s := &m.shards[i]
		for _, e := range s.doc.Explorations {
			switch other, ok := from[e.Case]; {
			case ok:
				return fmt.Errorf("%s: case %s is in shard %s (%s) too", s.dir, e.Case, other.doc.Shard.Shard, other.dir)
			case !slices.Contains(order, e.Case):
				return fmt.Errorf("%s: case %s is not a case of the exploration (%s)", s.dir, e.Case, and(order))
			}
			from[e.Case] = s
			m.explored = append(m.explored, e)
		}
	}
	slices.SortStableFunc(m.explored, func(a, b explore.Result) int {
		return cmp.Compare(slices.Index(order, a.Case), slices.Index(order, b.Case))
	})
	return nil
}

// axisRank is a matrix cell's place on the run's axes.
func (m *Shards) axisRank(r scenarios.Result) ([3]int, error) {
	rec := m.shards[0].doc.Shard
	st, sc, seed := slices.Index(rec.Strategies, r.Strategy), slices.Index(rec.Scenarios, r.Scenario), slices.Index(rec.Seeds, r.Seed)
	if st < 0 || sc < 0 || seed < 0 {
		return [3]int{}, errors.New("is not a cell of the run (its strategy, scenario or seed is not on the run's axes)")
	}
	return [3]int{st, sc, seed}, nil
}

// document is the merged document: the results in the unsharded order,
// the latencies summed again from the cells' histories, the seeds as they
// come; Started is the first shard's start, DurationMS the longest shard's
// and Merged lists the shards. Nothing in it comes from the clock of the
// merge: the same shards give the same bytes.
func (m *Shards) document() error {
	lat := results.NewLatencies()
	rs := make([]scenarios.Result, len(m.cells))
	for i, p := range m.cells {
		d := resultDir(p.from.dir, p.result)
		rec, _, err := ReadRecord(d)
		if err != nil {
			return err // names the file
		}
		lat.Add(p.result.Strategy, rec.Obs.History.Attempts)
		rs[i] = p.result
	}
	first := m.shards[0].doc
	started, took := first.Started, int64(0)
	var merged []results.MergedShard
	for _, s := range m.shards {
		if s.doc.Started.Before(started) {
			started = s.doc.Started
		}
		took = max(took, s.doc.DurationMS)
		merged = append(merged, results.MergedShard{K: s.doc.Shard.K, Cells: len(s.doc.Results) + len(s.doc.Explorations),
			Started: s.doc.Started.UTC(), DurationMS: s.doc.DurationMS})
	}
	m.doc = results.NewDocument(scenarios.Cover(rs), lat, first.Command, started)
	m.doc.DurationMS, m.doc.Skipped, m.doc.Merged, m.doc.Explorations = took, first.Skipped, merged, m.explored
	if first.Command == "explore" {
		m.doc.Seeds = first.Seeds
	}
	if len(rs) == 0 {
		m.doc.Profile = first.Profile
	}
	return nil
}

// Document is the merged run's document.
func (m *Shards) Document() results.Document { return m.doc }

// Cells is the number of cells of the merged run (an exploration's: its
// cases).
func (m *Shards) Cells() int { return len(m.cells) + len(m.explored) }

// N is the number of shards.
func (m *Shards) N() int { return len(m.shards) }

// CheckOut refuses an out directory that is a shard's directory, inside
// one, or holds one.
func (m *Shards) CheckOut(out string) error {
	o, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	for _, s := range m.shards {
		d, err := filepath.Abs(s.dir)
		if err != nil {
			return err
		}
		if within(o, d) || within(d, o) {
			return fmt.Errorf("--out %s: it overlaps the shard directory %s; choose a new one", out, s.dir)
		}
	}
	return nil
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Write copies every shard's cells into out, a new run directory (Mark
// it first), byte for byte, and then writes the merged document: a merge
// stopped half-way leaves a run directory without its document, as an
// interrupted run does.
func (m *Shards) Write(out string) error {
	for _, p := range m.cells {
		if err := copyCell(resultDir(p.from.dir, p.result), resultDir(out, p.result)); err != nil {
			return err
		}
	}
	return WriteDocument(out, m.doc)
}

// copyCell copies the files of a cell directory (not the temporary files
// a killed write may have left).
func copyCell(from, to string) error {
	entries, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		return fmt.Errorf("run dir: %w", err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if err := copyFile(filepath.Join(from, e.Name()), filepath.Join(to, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(from, to string) error {
	f, err := os.Open(from)
	if err != nil {
		return err
	}
	defer f.Close()
	return writeAtomic(to, func(w io.Writer) error {
		_, err := io.Copy(w, f)
		return err
	})
}
