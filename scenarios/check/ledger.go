package check

import (
	"fmt"

	"github.com/idemchaos/idemchaos/sim/history"
)

// doubleCharges reports every (account, key) holding more than one charge.
// chs is one key's charges sorted by account, then seq.
func (c *checker) doubleCharges(key string, chs []*history.Charge) {
	for lo := 0; lo < len(chs); {
		hi := lo + 1
		for hi < len(chs) && chs[hi].Account == chs[lo].Account {
			hi++
		}
		if hi-lo > 1 {
			c.doubleCharge(key, chs[lo:hi])
		}
		lo = hi
	}
}

// doubleCharge reports one (account, key) group of n > 1 charges, by seq.
func (c *checker) doubleCharge(key string, group []*history.Charge) {
	var money int64
	for _, ch := range group[1:] {
		money += ch.Amount
	}
	f := Finding{
		Anomaly: DoubleCharge,
		Key:     key,
		Account: group[0].Account,
		Money:   money,
		Charges: make([]string, len(group)),
	}
	made := make([]string, len(group))
	for i, ch := range group {
		f.Charges[i] = ch.ID
		if ch.AttemptID == "" {
			made[i] = ch.ID + " by an unrecorded attempt"
			continue
		}
		made[i] = ch.ID + " by attempt " + ch.AttemptID
		f.Attempts = appendUnique(f.Attempts, ch.AttemptID)
	}
	f.Detail = fmt.Sprintf("%s: charged %s on account %s (%s); %s overcharged",
		keyLabel(key), times(len(group)), group[0].Account, list(made), c.money(money))
	c.overcharged += money
	c.add(rankDoubleCharge, len(group)-1, f)
}

// checkBalances compares each ledger account's balance with its opening
// balance plus what was paid into it (top-ups) minus the sum of its charges.
func (c *checker) checkBalances() {
	index := make(map[string]int, len(c.accounts))
	for i, a := range c.accounts {
		if _, dup := index[a.ID]; !dup {
			index[a.ID] = i
		}
	}
	sums := make([]int64, len(c.accounts))
	counts := make([]int, len(c.accounts))
	for _, ch := range c.ledger {
		if i, ok := index[ch.Account]; ok {
			sums[i] += ch.Amount
			counts[i]++
		}
	}
	for _, a := range c.accounts {
		i := index[a.ID]
		want := a.Opening + a.Credited - sums[i]
		if want == a.Balance {
			continue
		}
		diff := want - a.Balance
		if diff < 0 {
			diff = -diff
		}
		credits := ""
		if a.Credited != 0 {
			credits = " plus " + Money(a.Credited) + " paid in"
		}
		c.add(rankBalance, 1, Finding{
			Anomaly: Balance,
			Account: a.ID,
			Money:   diff,
			Detail: fmt.Sprintf("account %s: opening balance %s%s minus %s totalling %s should leave %s, but the balance is %s; %s unaccounted for",
				a.ID, Money(a.Opening), credits, plural(counts[i], "charge"), Money(sums[i]), Money(want), Money(a.Balance), c.money(diff)),
		})
	}
}

// add records a finding that counts n.
func (c *checker) add(rank, n int, f Finding) {
	c.counts[rank] += n
	c.findings[rank] = append(c.findings[rank], f)
}
