package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Headers the service reads and writes.
const (
	headerKey      = "Idempotency-Key"
	headerAttempt  = "X-Idemchaos-Attempt" // the test client's attempt id, kept with the row
	headerReplayed = "Idempotent-Replayed"
)

// service is the charge endpoint.
type service struct {
	cfg    config
	ledger *ledger
	keys   *keys
	log    io.Writer
	behind sync.WaitGroup // late: rows answered but not yet committed
}

func newService(cfg config, l *ledger, log io.Writer) *service {
	return &service{cfg: cfg, ledger: l, keys: newKeys(cfg.claimTTL), log: log}
}

func (s *service) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/charges", s.charge)
	return mux
}

// request is the body of POST /v1/charges.
type request struct {
	Account  string `json:"account"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// fingerprint identifies the payload, whatever its spelling.
func (r request) fingerprint() string {
	b, _ := json.Marshal(r) // a struct of strings and an int always encodes
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// answer is the body of a 201.
type answer struct {
	ID       string    `json:"id"`
	Account  string    `json:"account"`
	Amount   int64     `json:"amount"`
	Currency string    `json:"currency"`
	Created  time.Time `json:"created"`
}

// render writes c's answer, stamped at the time of writing.
func render(c charge) []byte {
	b, _ := json.Marshal(answer{ID: c.ID, Account: c.Account, Amount: c.Amount, Currency: c.Currency, Created: time.Now().UTC()})
	return b
}

func (s *service) charge(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get(headerKey)
	if key == "" {
		fail(w, http.StatusBadRequest, "idempotency_key_missing", "the "+headerKey+" header is required")
		return
	}
	req, err := decode(w, r)
	if err != nil {
		fail(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	c := charge{Key: key, Account: req.Account, Amount: req.Amount, Currency: req.Currency, Attempt: r.Header.Get(headerAttempt)}
	// a charge outlives its client: a timeout or a dropped connection does
	// not stop money that is moving
	ctx := context.WithoutCancel(r.Context())
	if s.cfg.mistake == late {
		s.chargeBehind(ctx, w, c, req.fingerprint())
		return
	}
	for {
		e, st := s.keys.claim(key, req.fingerprint(), time.Now())
		switch st {
		case reused:
			fail(w, http.StatusUnprocessableEntity, "idempotency_key_reused", "this key was used with another payload")
		case stored:
			s.replay(ctx, w, e)
		case claimed:
			s.execute(ctx, w, c, e)
		case inFlight:
			if s.cfg.mistake != wait {
				fail(w, s.inFlightStatus(), "idempotency_key_in_use", "a request with this key is in progress; retry later")
				return
			}
			select { // the mistake: hold the duplicate until the charge is over
			case <-e.done:
				continue
			case <-r.Context().Done():
			}
		}
		return
	}
}

// inFlightStatus is the answer to a duplicate while its key is in flight:
// 409, or with too-early 425.
func (s *service) inFlightStatus() int {
	if s.cfg.mistake == tooEarly {
		return http.StatusTooEarly
	}
	return http.StatusConflict
}

// execute makes the charge of a claimed key and stores its answer; a
// failed charge releases the key for a retry.
func (s *service) execute(ctx context.Context, w http.ResponseWriter, c charge, e *entry) {
	pause(ctx, s.cfg.chargeTime)
	c.ID = newChargeID()
	if err := s.ledger.insert(ctx, c); err != nil {
		s.keys.release(c.Key, e)
		s.unavailable(w, err)
		return
	}
	body := render(c)
	s.keys.store(e, c.ID, body)
	created(w, body, false)
}

// replay answers a charged key again: its stored answer or, with
// rerender, the charge's row rendered anew.
func (s *service) replay(ctx context.Context, w http.ResponseWriter, e *entry) {
	body := e.answer
	if s.cfg.mistake == rerender {
		c, err := s.ledger.read(ctx, e.chargeID)
		if err != nil {
			s.unavailable(w, err)
			return
		}
		body = render(c)
	}
	created(w, body, true)
}

// chargeBehind is the late mistake: the charge is answered at once and its
// row written later; the key is recorded only then, so a retry meanwhile
// finds nothing and is charged again.
func (s *service) chargeBehind(ctx context.Context, w http.ResponseWriter, c charge, fp string) {
	switch e, st := s.keys.find(c.Key, fp, time.Now()); st {
	case reused:
		fail(w, http.StatusUnprocessableEntity, "idempotency_key_reused", "this key was used with another payload")
		return
	case stored:
		s.replay(ctx, w, e)
		return
	}
	pause(ctx, s.cfg.chargeTime)
	c.ID = newChargeID()
	body := render(c)
	s.behind.Add(1)
	go func() {
		defer s.behind.Done()
		pause(ctx, s.cfg.late)
		if err := s.ledger.insert(ctx, c); err != nil {
			fmt.Fprintf(s.log, "paysvc: charge %s answered but not written: %v\n", c.ID, err)
			return
		}
		s.keys.record(c.Key, fp, c.ID, body)
	}()
	created(w, body, false)
}

// decode reads the request body (at most 64 KiB).
func decode(w http.ResponseWriter, r *http.Request) (request, error) {
	var req request
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, fmt.Errorf("body: %w", err)
	}
	switch {
	case req.Account == "":
		return req, errors.New("account is required")
	case req.Amount <= 0:
		return req, errors.New("amount must be a positive number of minor units")
	case len(req.Currency) != 3:
		return req, errors.New("currency must be a three-letter code")
	}
	return req, nil
}

func created(w http.ResponseWriter, body []byte, replayed bool) {
	w.Header().Set("Content-Type", "application/json")
	if replayed {
		w.Header().Set(headerReplayed, "true")
	}
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(body)
}

func (s *service) unavailable(w http.ResponseWriter, err error) {
	fmt.Fprintf(s.log, "paysvc: ledger: %v\n", err)
	fail(w, http.StatusServiceUnavailable, "store_unavailable", "the ledger is unavailable; retry")
}

// fail answers an error as {"code", "message"}.
func fail(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}{code, msg})
}

// pause waits d, as a call to the payment processor would.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

func newChargeID() string { return "ch_" + rand.Text() }
