package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"text/template"

	"github.com/idemchaos/idemchaos/targets/api"
)

// Shape is the request a target expects and how its answer reads, for
// services that are not the built-in API. The zero Shape is the built-in API.
type Shape struct {
	// Path is appended to the route's base URL (default /v1/charges).
	Path string `json:"path,omitempty"`
	// Body is a text/template over .Account, .Amount, .Currency, .Key and
	// .Attempt (default: the built-in JSON body). A ledger that keeps the
	// key in another field (a reference) gets it from here.
	Body string `json:"body,omitempty"`
	// KeyHeader carries the idempotency key (default Idempotency-Key).
	KeyHeader string `json:"key_header,omitempty"`
	// Success lists the statuses that mean "charged" (default: any 2xx).
	// Another 2xx is an unknown outcome.
	Success []int `json:"success,omitempty"`
	// ChargeID is the dotted path of the JSON field naming the charge in a
	// success answer (default "id").
	ChargeID string `json:"charge_id,omitempty"`
	// ReplayHeader marks a replayed answer when its value is "true"
	// (default Idempotent-Replayed).
	ReplayHeader string `json:"replay_header,omitempty"`
}

// BodyFields are what a body template may use.
type BodyFields struct {
	Account  string
	Amount   int64
	Currency string
	Key      string
	Attempt  string
}

// shaper is a Shape ready to use.
type shaper struct {
	Shape
	body    *template.Template // nil: the built-in body
	idPath  []string
	success map[int]bool
}

// compile fills the defaults and checks the template.
func (s Shape) compile() (*shaper, error) {
	if s.Path == "" {
		s.Path = api.PathCharges
	}
	if s.KeyHeader == "" {
		s.KeyHeader = api.HeaderKey
	}
	if s.ChargeID == "" {
		s.ChargeID = "id"
	}
	if s.ReplayHeader == "" {
		s.ReplayHeader = api.HeaderReplayed
	}
	sh := &shaper{Shape: s, idPath: strings.Split(s.ChargeID, "."), success: map[int]bool{}}
	for _, code := range s.Success {
		sh.success[code] = true
	}
	if s.Body == "" {
		return sh, nil
	}
	t, err := template.New("body").Option("missingkey=error").Parse(s.Body)
	if err != nil {
		return nil, fmt.Errorf("body template: %w", oneLine(err))
	}
	sh.body = t
	if _, err := sh.render(BodyFields{Account: "a", Amount: 1, Currency: "EUR", Key: "k", Attempt: "o0-t1"}); err != nil {
		return nil, err
	}
	return sh, nil
}

// Check reports the first problem with s, or nil.
func (s Shape) Check() error {
	if !strings.HasPrefix(s.Path, "/") && s.Path != "" {
		return fmt.Errorf("path %q must start with /", s.Path)
	}
	for _, code := range s.Success {
		if code < 200 || code > 299 {
			return fmt.Errorf("success status %d is not a 2xx", code)
		}
	}
	_, err := s.compile()
	return err
}

func (s *shaper) render(f BodyFields) ([]byte, error) {
	if s.body == nil {
		return json.Marshal(api.ChargeRequest{Account: f.Account, Amount: f.Amount, Currency: f.Currency})
	}
	var b bytes.Buffer
	if err := s.body.Execute(&b, f); err != nil {
		return nil, fmt.Errorf("body template: %w", oneLine(err))
	}
	return b.Bytes(), nil
}

// acked reports whether status means the charge was made.
func (s *shaper) acked(status int) bool {
	if len(s.success) == 0 {
		return status/100 == 2
	}
	return s.success[status]
}

// chargeID finds the charge's id in a success answer, if it names one: a
// string, or a number as written.
func (s *shaper) chargeID(body []byte) string {
	raw := json.RawMessage(body)
	for _, name := range s.idPath {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return ""
		}
		raw = m[name]
	}
	var id string
	if json.Unmarshal(raw, &id) == nil {
		return id
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

func oneLine(err error) error {
	return fmt.Errorf("%s", strings.ReplaceAll(err.Error(), "\n", " "))
}

// replayed reports whether the answer says it is a replay.
func (s *shaper) replayed(h http.Header) bool { return h.Get(s.ReplayHeader) == "true" }
