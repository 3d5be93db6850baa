package check

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/idemchaos/idemchaos/sim/history"
)

// shortLen is how many characters of a key or fingerprint a detail shows.
const shortLen = 8

// maxListed is how many items a detail sentence lists before "and N more".
const maxListed = 5

// short abbreviates s to its first shortLen characters.
func short(s string) string {
	if utf8.RuneCountInString(s) <= shortLen {
		return s
	}
	n := 0
	for i := range s {
		if n == shortLen {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// keyLabel names a key in a sentence.
func keyLabel(key string) string {
	if key == "" {
		return "no key"
	}
	return "key " + short(key)
}

// who opens a sentence about attempt a of key: "key 3f2a1b4c…: attempt a1-2".
func who(key string, a *history.Attempt) string {
	name := "attempt " + a.ID
	if a.Hidden {
		name = "hidden re-sent attempt " + a.ID
	}
	if key == "" {
		return name + " (sent without a key)"
	}
	return keyLabel(key) + ": " + name
}

// list joins items as "a, b and c", eliding after maxListed.
func list(items []string) string {
	if len(items) > maxListed {
		rest := len(items) - maxListed + 1
		items = append(items[:maxListed-1:maxListed-1], fmt.Sprintf("%d more", rest))
	}
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// times renders "twice", "3 times".
func times(n int) string {
	if n == 2 {
		return "twice"
	}
	return plural(n, "time")
}

// plural renders "1 charge", "3 charges".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// money is an amount in major units with the run's currency: "7.00 EUR".
func (c *checker) money(minor int64) string { return Amount(minor, c.currency) }

// payload describes a request body in domain words.
func (c *checker) payload(a *history.Attempt) string {
	return c.sum(a.Amount, a.Account)
}

// sum is an amount on an account: "7.00 EUR on account acct-1".
func (c *checker) sum(minor int64, account string) string {
	return c.money(minor) + " on account " + account
}

// payloadVersus contrasts a's payload with the reference attempt's, naming
// the account once when both share it.
func (c *checker) payloadVersus(a, ref *history.Attempt) string {
	switch {
	case a.Account == ref.Account && a.Amount != ref.Amount:
		return fmt.Sprintf("%s where attempt %s asked %s, on account %s", c.money(a.Amount), ref.ID, c.money(ref.Amount), a.Account)
	case a.Amount != ref.Amount || a.Account != ref.Account:
		return fmt.Sprintf("%s where attempt %s asked %s", c.payload(a), ref.ID, c.payload(ref))
	}
	return fmt.Sprintf("fingerprint %s where attempt %s had %s", short(a.Fingerprint), ref.ID, short(ref.Fingerprint))
}

// chargeLabel names a charge id, or its absence.
func chargeLabel(id string) string {
	if id == "" {
		return "no charge id"
	}
	return "charge " + id
}

// profileLabel names the contract profile in a sentence.
func (c *checker) profileLabel() string {
	if c.profile.Name == "" {
		return "the contract profile"
	}
	return "the " + c.profile.Name + " profile"
}

// appendUnique appends the non-empty s to ids unless already present.
func appendUnique(ids []string, s string) []string {
	if s == "" {
		return ids
	}
	for _, id := range ids {
		if id == s {
			return ids
		}
	}
	return append(ids, s)
}

func is2xx(status int) bool { return status >= 200 && status < 300 }

func is5xx(status int) bool { return status >= 500 && status < 600 }

// Money formats an amount in minor units as major.minor ("1250" → "12.50").
func Money(minor int64) string {
	sign := ""
	if minor < 0 {
		sign, minor = "-", -minor
	}
	return fmt.Sprintf("%s%d.%02d", sign, minor/100, minor%100)
}

// Amount is Money with the currency after it, when there is one: "12.50 EUR".
func Amount(minor int64, currency string) string {
	if currency == "" {
		return Money(minor)
	}
	return Money(minor) + " " + currency
}

// duration formats a duration readably: "250µs", "500ms", "1.84s", "2m5s", "24h".
func duration(d time.Duration) string {
	if d < 0 {
		return "-" + duration(-d)
	}
	switch {
	case d < time.Millisecond:
		return d.String()
	case d < time.Second-time.Millisecond/2:
		return strconv.FormatInt(int64(d.Round(time.Millisecond)/time.Millisecond), 10) + "ms"
	case d < time.Minute-5*time.Millisecond:
		return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + "s"
	}
	s := d.Round(time.Second).String() // "2m5s", "2m0s", "24h0m0s"
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// ledgerSum is a ledger charge's amount, with its account when it is not
// the one the sentence already named.
func (c *checker) ledgerSum(ch *history.Charge, named string) string {
	if ch.Account == named {
		return c.money(ch.Amount)
	}
	return c.sum(ch.Amount, ch.Account)
}
