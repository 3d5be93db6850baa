// Package ops is what the drivers share of idemchaos's client protocol
// (docs/clients.md): the operations to make, the request timeout, and one
// line told per operation.
package ops

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Op is one operation of IDEMCHAOS_OPS.
type Op struct {
	Op       string `json:"op"`
	Account  string `json:"account"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// Read returns the operations in the JSON file IDEMCHAOS_OPS names.
func Read() ([]Op, error) {
	b, err := os.ReadFile(os.Getenv("IDEMCHAOS_OPS"))
	if err != nil {
		return nil, err
	}
	var all []Op
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, fmt.Errorf("IDEMCHAOS_OPS: %v", err)
	}
	return all, nil
}

// Timeout is IDEMCHAOS_TIMEOUT_MS (1000 when unset).
func Timeout() time.Duration {
	ms, err := strconv.Atoi(os.Getenv("IDEMCHAOS_TIMEOUT_MS"))
	if err != nil || ms <= 0 {
		ms = 1000
	}
	return time.Duration(ms) * time.Millisecond
}

// Tell prints the operation's line: "OP succeeded ID", or "OP failed ERR"
// with the error on one line.
func Tell(op Op, id string, err error) {
	if err != nil {
		fmt.Printf("%s failed %s\n", op.Op, strings.Join(strings.Fields(err.Error()), " "))
		return
	}
	fmt.Printf("%s succeeded %s\n", op.Op, id)
}
