package history

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Version is the version of the history.jsonl format.
const Version = 1

// header is the first line of history.jsonl.
type header struct {
	V            int           `json:"v"`
	Seed         uint64        `json:"seed"`
	Attempts     int           `json:"attempts"`
	Quiesced     time.Duration `json:"quiesced_ns,omitempty"`
	ClaimTimeout time.Duration `json:"claim_timeout_ns,omitempty"`
	KeyTTL       time.Duration `json:"key_ttl_ns,omitempty"`
	End          time.Duration `json:"end_ns,omitempty"`
}

// WriteJSONL writes h as a header line and one attempt per line.
func WriteJSONL(w io.Writer, h History) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	hd := header{V: Version, Seed: h.Seed, Attempts: len(h.Attempts), Quiesced: h.Quiesced,
		ClaimTimeout: h.ClaimTimeout, KeyTTL: h.KeyTTL, End: h.End}
	if err := enc.Encode(hd); err != nil {
		return err
	}
	for i := range h.Attempts {
		if err := enc.Encode(&h.Attempts[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// maxLine bounds one line of history.jsonl (an attempt with its evidence).
const maxLine = 1 << 20

// ReadJSONL reads a history written by WriteJSONL. A file whose attempt count
// does not match its header (cut short by a crash) is an error.
func ReadJSONL(r io.Reader) (History, error) {
	var h History
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	if !sc.Scan() {
		return h, fmt.Errorf("history: empty (%v)", sc.Err())
	}
	var hd header
	if err := json.Unmarshal(sc.Bytes(), &hd); err != nil {
		return h, fmt.Errorf("history: line 1: %w", err)
	}
	if hd.V != Version {
		return h, fmt.Errorf("history: version %d, this idemchaos reads %d", hd.V, Version)
	}
	if hd.Attempts < 0 || hd.Attempts > 10_000_000 {
		return h, fmt.Errorf("history: line 1: %d attempts", hd.Attempts)
	}
	h = History{Seed: hd.Seed, Quiesced: hd.Quiesced, ClaimTimeout: hd.ClaimTimeout, KeyTTL: hd.KeyTTL, End: hd.End,
		Attempts: make([]Attempt, 0, min(hd.Attempts, 100_000))}
	var d decoder
	for line := 2; sc.Scan(); line++ {
		var a Attempt
		if err := d.unmarshal(sc.Bytes(), &a); err != nil {
			return h, fmt.Errorf("history: line %d: %w", line, err)
		}
		if len(h.Attempts) == cap(h.Attempts) {
			h.Attempts = grow(h.Attempts, hd.Attempts)
		}
		h.Attempts = append(h.Attempts, a)
	}
	if err := sc.Err(); err != nil {
		return h, fmt.Errorf("history: %w", err)
	}
	if len(h.Attempts) != hd.Attempts {
		return h, fmt.Errorf("history: header says %d attempts, file holds %d (cut short?)", hd.Attempts, len(h.Attempts))
	}
	return h, nil
}

// grow makes room for more attempts than atts holds, up to the header's
// count: at most 16 times as many as the file has already given (a header
// alone reserves no more than the first 100,000), so a long history is
// copied once or twice instead of at every doubling.
func grow(atts []Attempt, want int) []Attempt {
	n := min(want, 16*len(atts))
	if n <= len(atts) {
		return atts // more lines than the header says: append, and fail at the end
	}
	return append(make([]Attempt, 0, n), atts...)
}

// unmarshal decodes one attempt line as encoding/json does: by the
// decoder without reflection when the line has the shape WriteJSONL
// writes, else by encoding/json.
func (d *decoder) unmarshal(line []byte, a *Attempt) error {
	if d.attempt(line, a) {
		return nil
	}
	*a = Attempt{}
	return json.Unmarshal(line, a)
}
