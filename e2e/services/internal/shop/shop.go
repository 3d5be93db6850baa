// Package shop is the plumbing the test services share, as a team's
// services share a small internal package: the schema of a payments
// database (accounts with balances, a charges ledger, an idempotency key
// table), the request and answer of POST /v1/charges, the slow payment
// provider every charge calls, and serving on loopback. The idempotency
// logic, where the services differ, is each service's own.
package shop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// LedgerQuery is what idemchaos --ledger-query reads from every service.
const LedgerQuery = "SELECT idempotency_key, account, amount, 'ch_' || id AS id, attempt_id FROM charges"

// Schema creates the tables; keys.response is of responseType (text, or
// jsonb as a blog post about Postgres would store it).
func Schema(responseType string) string {
	return `CREATE TABLE IF NOT EXISTS accounts (id text PRIMARY KEY, balance bigint NOT NULL);
CREATE TABLE IF NOT EXISTS charges (
	id bigserial PRIMARY KEY, idempotency_key text, account text NOT NULL REFERENCES accounts(id),
	amount bigint NOT NULL, currency text NOT NULL, attempt_id text, created timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS idempotency_keys (
	key text PRIMARY KEY, fingerprint text NOT NULL, status int, response ` + responseType + `,
	created timestamptz NOT NULL DEFAULT now());
INSERT INTO accounts (id, balance) VALUES ('acct-1', 1000000000), ('acct-2', 1000000000), ('acct-3', 1000000000), ('acct-4', 1000000000)
	ON CONFLICT DO NOTHING`
}

// Flags are every service's flags.
type Flags struct {
	DSN      string
	Redis    string
	Provider string // "150ms-400ms": how long the payment provider takes
	Min, Max time.Duration
	// Failpoints switches on the failpoint protocol, for the services
	// that speak it (NewPoints).
	Failpoints bool
}

// ParseFlags reads the flags (provider: the default --provider; more: a
// service's own); the program exits 2 on bad ones.
func ParseFlags(name, provider string, more ...func(*flag.FlagSet)) Flags {
	var f Flags
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	fs.StringVar(&f.DSN, "dsn", "", "the payments database (postgres://...)")
	fs.StringVar(&f.Redis, "redis", "", "the Redis for the idempotency claims (redis://...), where the service uses one")
	fs.StringVar(&f.Provider, "provider", provider, "how long the payment provider takes: MIN-MAX")
	fs.BoolVar(&f.Failpoints, "failpoints", false, "speak idemchaos's failpoint protocol (tests only; never in production)")
	for _, m := range more {
		m(fs)
	}
	_ = fs.Parse(os.Args[1:])
	var ok bool
	f.Min, f.Max, ok = ParseSpan(f.Provider)
	if f.DSN == "" || !ok || f.Min <= 0 {
		fmt.Fprintf(os.Stderr, "%s: want --dsn and --provider MIN-MAX\n", name)
		os.Exit(2)
	}
	return f
}

// ParseSpan reads a span "MIN-MAX" of durations, 0 <= MIN <= MAX.
func ParseSpan(s string) (lo, hi time.Duration, ok bool) {
	a, b, _ := strings.Cut(s, "-")
	lo, err1 := time.ParseDuration(a)
	hi, err2 := time.ParseDuration(b)
	return lo, hi, err1 == nil && err2 == nil && lo >= 0 && hi >= lo
}

// Open connects to the database and creates the tables.
func Open(ctx context.Context, dsn, responseType string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = 32
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := pool.Exec(ctx, Schema(responseType)); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// Charge is the body of POST /v1/charges.
type Charge struct {
	Account  string `json:"account"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// Read decodes a charge request and its fingerprint (the SHA-256 of the
// body); a bad one has been answered 400.
func Read(w http.ResponseWriter, r *http.Request) (Charge, string, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	var c Charge
	if err == nil {
		err = json.Unmarshal(body, &c)
	}
	if err != nil || c.Account == "" || c.Amount <= 0 {
		Error(w, http.StatusBadRequest, "invalid_request", "want {account, amount, currency}")
		return c, "", false
	}
	sum := sha256.Sum256(body)
	return c, hex.EncodeToString(sum[:]), true
}

// Answer is a charge's 201 body.
func Answer(id int64, c Charge) []byte {
	b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("ch_%d", id), "object": "charge", "account": c.Account,
		"amount": c.Amount, "currency": c.Currency, "status": "succeeded"})
	return b
}

// Write writes a JSON answer; replayed marks a stored one.
func Write(w http.ResponseWriter, status int, body []byte, replayed bool) {
	w.Header().Set("Content-Type", "application/json")
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// Error writes an error answer.
func Error(w http.ResponseWriter, status int, code, msg string) {
	b, _ := json.Marshal(map[string]string{"code": code, "message": msg})
	Write(w, status, b, false)
}

// Provider is the payment provider, or any other step a request waits
// for: each call takes between its min and max, and gives up when ctx
// does.
type Provider struct {
	mu       sync.Mutex
	rng      *rand.Rand
	min, max time.Duration
}

// NewProvider is the provider of f.
func NewProvider(f Flags) *Provider { return NewWait(f.Min, f.Max) }

// NewWait is a step that takes between min and max.
func NewWait(min, max time.Duration) *Provider {
	return &Provider{rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7)), min: min, max: max}
}

// Call charges the card at the provider (or takes the step).
func (p *Provider) Call(ctx context.Context) error {
	p.mu.Lock()
	d := p.min + time.Duration(p.rng.Int64N(int64(p.max-p.min)+1))
	p.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Serve serves h on a free loopback port, prints its URL on stdout and
// runs until SIGINT or SIGTERM, then lets requests in flight finish.
func Serve(name string, h http.Handler) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Printf("http://%s\n", ln.Addr())
	select {
	case err := <-served:
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(os.Stderr, "%s: shutdown: %v\n", name, err)
	}
}

// Fail exits the program on a start-up error.
func Fail(name string, err error) {
	fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
	os.Exit(1)
}
