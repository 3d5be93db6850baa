package history

import "time"

// Client mode turns the roles round: idemchaos serves the payment API and
// the code under test is the client. What it records there is below: the
// operations it asked the client to make, every charge request the client
// sent as the server received it, and what the client said it told its
// user; with the ledger, that is all the client checker reads.

// Operation is one charge idemchaos asks a client under test to make. Its
// account is its own, so any request naming that account belongs to it.
type Operation struct {
	ID       string `json:"op"`
	Account  string `json:"account"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// Received is one charge request as the server in front of the client
// under test received it.
type Received struct {
	ID  string `json:"id"`           // the server's attempt id
	Op  string `json:"op,omitempty"` // the operation its body names ("": none)
	Try int    `json:"try"`          // its rank among its operation's requests, from 1
	Key string `json:"key,omitempty"`
	// Body is the body in its canonical form (api.Shape.Decode): two
	// requests a client meant as the same have the same Body.
	Body string `json:"body"`
	// Invalid says why the body could not be read as a charge ("": it
	// could).
	Invalid string `json:"invalid,omitempty"`
	// Fault is what the server did to the request (a workload.FrontFault;
	// "": nothing, it was answered).
	Fault   string        `json:"fault,omitempty"`
	Arrived time.Duration `json:"arrived_ns"`
	// Answered is when the client got its answer or its connection was
	// reset (the fault's doing).
	Answered time.Duration `json:"answered_ns"`
	// Status is the answer the client got; 0: none, the connection was
	// reset (or the client hung up before a slow answer came).
	Status int `json:"status,omitempty"`
	// RetryAfter is the Retry-After, in seconds, of the answer it got.
	RetryAfter int `json:"retry_after_s,omitempty"`
	// Charge is the charge id of a 2xx answer the server made, given or
	// not.
	Charge string `json:"charge,omitempty"`
	// Conn is the client's end of the connection it came on (host:port;
	// "": not kept, a record saved before it was).
	Conn string `json:"conn,omitempty"`
	// ConnClosed is when that connection closed (0: it was open when the
	// run ended).
	ConnClosed time.Duration `json:"conn_closed_ns,omitempty"`
}

// ReadBefore reports whether the client is known to have read r's answer
// before it sent next: next came on r's connection (HTTP/1.1 sends on a
// connection only once the answer before is whole), or r's connection
// was still open when next arrived (a client that gives up on an answer,
// its timeout passed, closes the connection it waits on). A record with
// no connection kept is taken as read.
func (r Received) ReadBefore(next Received) bool {
	return r.Conn == "" || r.Conn == next.Conn || r.ConnClosed == 0 || r.ConnClosed > next.Arrived
}

// The outcomes a client under test may report for an operation.
const (
	Succeeded = "succeeded"
	Failed    = "failed"
)

// Told is what the client under test said it told its user of one
// operation, read from the line it printed.
type Told struct {
	Op      string        `json:"op"`
	Outcome string        `json:"outcome"` // Succeeded or Failed
	Detail  string        `json:"detail,omitempty"`
	At      time.Duration `json:"at_ns"`
}

// ClientRun is everything the client checker reads of one run of a
// client under test.
type ClientRun struct {
	Ops      []Operation `json:"ops"`
	Received []Received  `json:"received"`
	Told     []Told      `json:"told"`
	Charges  []Charge    `json:"charges"` // the ledger's, after the run settled
	// Hammer is the shortest wait after a 409 that still counts as a
	// back-off (0: 50ms).
	Hammer time.Duration `json:"hammer_ns,omitempty"`
}
