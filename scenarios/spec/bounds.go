package spec

import (
	"fmt"
	"math"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
)

// Bounds of a scenario file: every run stays small and short.
const (
	maxAccounts   = 100
	maxOpening    = 1_000_000_000_000
	maxAmount     = 1_000_000_000
	maxDuplicates = 49
	maxSpread     = time.Minute
	maxTries      = 20
	maxPerTry     = 10 * time.Second
	maxBackoff    = 10 * time.Second
	maxReplicas   = 8
	maxClaimTTL   = time.Minute
	maxKeyTTL     = 24 * time.Hour
	maxInjection  = api.MaxInjectionArg
	maxFaults     = 16
	maxText       = 1000
	maxRunTime    = 5 * time.Minute
)

// fieldErr is a validation error: the field path, then what is wrong.
func fieldErr(path, format string, args ...any) error {
	return fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
}

func intIn(path string, v, lo, hi int64) error {
	if v < lo || v > hi {
		return fieldErr(path, "%d is not in %d..%d", v, lo, hi)
	}
	return nil
}

// durIn checks lo < d <= hi, or lo <= d <= hi when zero is allowed.
func durIn(path string, d Duration, hi time.Duration, zeroOK bool) error {
	switch {
	case zeroOK && (d < 0 || d.D() > hi):
		return fieldErr(path, "%s is not in [0s, %s]", fmtDur(d.D()), fmtDur(hi))
	case !zeroOK && (d <= 0 || d.D() > hi):
		return fieldErr(path, "%s is not in (0s, %s]", fmtDur(d.D()), fmtDur(hi))
	}
	return nil
}

// shareIn checks a share is in [0, 1], or (0, 1] when zero is not allowed.
func shareIn(path string, v float64, zeroOK bool) error {
	switch {
	case math.IsNaN(v) || v < 0 || v > 1:
		if zeroOK {
			return fieldErr(path, "%g is not in [0, 1]", v)
		}
		return fieldErr(path, "%g is not in (0, 1]", v)
	case v == 0 && !zeroOK:
		return fieldErr(path, "0 is not in (0, 1]: a fault that never fires")
	}
	return nil
}

// fmtDur writes whole minutes and hours without the trailing zeros.
func fmtDur(d time.Duration) string {
	switch {
	case d != 0 && d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d != 0 && d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}

// count is how many of n items a share picks: round(share × n), at least
// one when the share is above zero.
func countOf(share float64, n int) int {
	if !(share > 0) || n <= 0 {
		return 0
	}
	k := int(math.Round(min(share, 1) * float64(n)))
	return min(max(k, 1), n)
}
