package scenarios

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// LedgerURLEnv is where the repro line finds the ledger's URL: it is never
// printed, since it may hold a password.
const LedgerURLEnv = "IDEMCHAOS_LEDGER_URL"

// Repro is the one-line command that re-runs cell c against t.
func (t External) Repro(c Cell) string {
	return fmt.Sprintf("idemchaos run %s %s --seed %d%s%s", t.where(), c.scenarioArg(), c.Seed, c.profileArg(), t.flags())
}

// Args are the flags that name t on a command line: where it is, its
// ledger and how it is spoken to ("--target-url ... --failpoints").
func (t External) Args() string { return t.where() + t.flags() }

// where is the flags of the service's URLs and its ledger.
func (t External) where() string {
	return fmt.Sprintf("--target-url %s --ledger-url \"$%s\" --ledger-query %s", shellQuote(strings.Join(t.URLs, ",")), LedgerURLEnv, shellQuote(t.LedgerQuery))
}

// flags is the flags of everything else t sets, each with a leading space.
func (t External) flags() string {
	var b strings.Builder
	flag := func(name, value string) {
		if value != "" {
			fmt.Fprintf(&b, " --%s %s", name, shellQuote(value))
		}
	}
	if t.Name != DefaultExternalName {
		flag("target-name", t.Name)
	}
	if t.ClaimTimeout != DefaultClaimTimeout {
		flag("claim-timeout", t.ClaimTimeout.String())
	}
	if t.KeyTTL > 0 {
		flag("key-ttl", t.KeyTTL.String())
	}
	if t.Settle > 0 {
		flag("settle", t.Settle.String())
	}
	flag("accounts", strings.Join(t.Accounts, ","))
	flag("currency", t.Currency)
	flag("path", t.Shape.Path)
	flag("body", t.Shape.Body)
	flag("key-header", t.Shape.KeyHeader)
	flag("success-status", joinInts(t.Shape.Success))
	flag("charge-id-field", t.Shape.ChargeID)
	flag("replay-header", t.Shape.ReplayHeader)
	if !t.Replay.JSON { // as JSON is the default
		flag("replay-compare", "bytes")
	}
	flag("replay-ignore", strings.Join(t.Replay.Ignore, ","))
	if t.Power.Target > 0 {
		flag("power-target", strconv.Itoa(t.Power.Target))
	}
	if t.Power.Aim > 0 {
		flag("power-aim", strconv.Itoa(t.Power.Aim))
	}
	if t.Power.Budget > 0 {
		flag("power-budget", t.Power.Budget.String())
	}
	if t.TopUp != nil {
		flag("topup-path", t.TopUp.Path)
		flag("topup-body", t.TopUp.Body)
		if t.TopUp.Amount > 0 {
			flag("topup-amount", strconv.FormatInt(t.TopUp.Amount, 10))
		}
	}
	flag("toxiproxy-url", t.Toxiproxy)
	flag("postgres-proxy", t.PostgresProxy)
	flag("redis-proxy", t.RedisProxy)
	flag("dynamodb-proxy", t.DynamoDBProxy)
	if t.Failpoints {
		b.WriteString(" --failpoints")
	}
	if t.AllowRemote {
		b.WriteString(" --allow-remote")
	}
	return b.String()
}

// DefaultClaimTimeout is an external target's claim timeout unless given.
const DefaultClaimTimeout = 5 * time.Second

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:/=@+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
