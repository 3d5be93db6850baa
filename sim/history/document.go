package history

import (
	"bytes"
	"encoding/json"
)

// Decode decodes the first JSON value of data into v as encoding/json's
// Decoder does (what follows the value is left unread). It is faster for
// the documents a saved run holds: a zero *Ledger (ledger.json) and a nil
// *[]RedisRecord (redis.json) are read without reflection when the
// document is an object or array of known fields, each met once, with
// plain integers, escapes other than a surrogate \u and valid UTF-8;
// anything else, and any other v, is left to encoding/json, so the result
// is always what encoding/json makes of data. The fuzz target
// FuzzDecodeDocument holds it to that.
func Decode(data []byte, v any) error {
	if decodeFast(data, v) {
		return nil
	}
	return json.NewDecoder(bytes.NewReader(data)).Decode(v)
}

// decodeFast decodes data into v without reflection, reporting false
// (v untouched) for a v or a document it does not read.
func decodeFast(data []byte, v any) bool {
	d := decoder{b: data}
	switch v := v.(type) {
	case *Ledger:
		var l Ledger
		if zeroLedger(v) && d.object(func(name []byte) bool { return d.ledgerField(name, &l) }) {
			*v = l
			return true
		}
	case *[]RedisRecord:
		var rs []RedisRecord
		if *v == nil && d.peek('[') && list(&d, &rs, d.redisRecord) {
			*v = rs
			return true
		}
	}
	return false
}

// zeroLedger reports whether l is the zero Ledger: encoding/json merges a
// document into what v holds, which the decoder does not.
func zeroLedger(l *Ledger) bool {
	return l.Charges == nil && l.Accounts == nil && l.Redis == nil && l.RowsAtStart == 0 &&
		!l.NoAttemptIDs && !l.NoChargeIDs && !l.NoKeyless
}

// peek reports whether c is next, after whitespace, without consuming it.
func (d *decoder) peek(c byte) bool {
	d.space()
	return d.i < len(d.b) && d.b[d.i] == c
}

func (d *decoder) ledgerField(name []byte, l *Ledger) bool {
	switch string(name) {
	case "charges":
		return d.once(0) && list(d, &l.Charges, d.charge)
	case "accounts":
		return d.once(1) && list(d, &l.Accounts, d.account)
	case "rows_at_start":
		return d.once(2) && d.int(&l.RowsAtStart)
	case "no_attempt_ids":
		return d.once(3) && d.bool(&l.NoAttemptIDs)
	case "no_charge_ids":
		return d.once(4) && d.bool(&l.NoChargeIDs)
	case "no_keyless":
		return d.once(5) && d.bool(&l.NoKeyless)
	case "redis":
		return d.once(6) && list(d, &l.Redis, d.redisRecord)
	}
	return false
}

func (d *decoder) charge(c *Charge) bool {
	return d.object(func(name []byte) bool {
		switch string(name) {
		case "id":
			return d.once(0) && d.string(&c.ID)
		case "account":
			return d.once(1) && d.string(&c.Account)
		case "amount":
			return d.once(2) && d.int64(&c.Amount)
		case "key":
			return d.once(3) && d.string(&c.Key)
		case "attempt_id":
			return d.once(4) && d.string(&c.AttemptID)
		case "seq":
			return d.once(5) && d.int64(&c.Seq)
		}
		return false
	})
}

func (d *decoder) account(a *Account) bool {
	return d.object(func(name []byte) bool {
		switch string(name) {
		case "id":
			return d.once(0) && d.string(&a.ID)
		case "opening":
			return d.once(1) && d.int64(&a.Opening)
		case "balance":
			return d.once(2) && d.int64(&a.Balance)
		case "credited":
			return d.once(3) && d.int64(&a.Credited)
		}
		return false
	})
}

func (d *decoder) redisRecord(r *RedisRecord) bool {
	return d.object(func(name []byte) bool {
		switch string(name) {
		case "key":
			return d.once(0) && d.string(&r.Key)
		case "fingerprint":
			return d.once(1) && d.string(&r.Fingerprint)
		case "done":
			return d.once(2) && d.bool(&r.Done)
		case "status":
			return d.once(3) && d.int(&r.Status)
		case "charge_id":
			return d.once(4) && d.string(&r.ChargeID)
		case "ttl_ns":
			return d.once(5) && d.duration(&r.TTL)
		}
		return false
	})
}
