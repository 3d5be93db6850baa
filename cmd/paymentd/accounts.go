package main

import (
	"fmt"
	"strconv"
	"strings"
)

// defaultAccounts is what paymentd opens when --accounts is not given.
const defaultAccounts = "acct-1=1000000,acct-2=1000000,acct-3=1000000,acct-4=1000000"

// account is one account to open: its id and opening balance in minor units.
type account struct {
	id      string
	opening int64
}

// parseAccounts reads "id=amount,id=amount".
func parseAccounts(s string) ([]account, error) {
	var out []account
	seen := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		id, amount, ok := strings.Cut(strings.TrimSpace(item), "=")
		id = strings.TrimSpace(id)
		if !ok || id == "" {
			return nil, fmt.Errorf("%q: want id=opening balance", item)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(amount), 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q: the opening balance must be a whole number of minor units, 0 or more", item)
		}
		if seen[id] {
			return nil, fmt.Errorf("account %q given twice", id)
		}
		seen[id] = true
		out = append(out, account{id: id, opening: n})
	}
	return out, nil
}
