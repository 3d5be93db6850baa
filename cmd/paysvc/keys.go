package main

import (
	"sync"
	"time"
)

// keys are the service's idempotency keys, in memory: a claim while the
// charge runs, then the stored answer.
type keys struct {
	ttl time.Duration // a claim older than this is abandoned

	mu sync.Mutex
	m  map[string]*entry
}

// entry is one key: the payload it was first sent with and, once charged,
// the charge and its answer.
type entry struct {
	fingerprint string
	since       time.Time     // when the claim was taken
	done        chan struct{} // closed when the claim ends: charged or released
	chargeID    string
	answer      []byte // the 201 body, byte for byte; nil while in flight
}

// state is what a request finds under its key.
type state int

const (
	absent   state = iota // no entry, or a claim abandoned past its TTL
	claimed               // the caller now holds the key: it charges
	stored                // charged: replay the entry's answer
	inFlight              // another request holds a live claim on the key
	reused                // the key was first sent with another payload
)

func newKeys(ttl time.Duration) *keys { return &keys{ttl: ttl, m: map[string]*entry{}} }

// find says what key holds for a request with fingerprint fp.
func (k *keys) find(key, fp string, now time.Time) (*entry, state) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.findLocked(key, fp, now)
}

func (k *keys) findLocked(key, fp string, now time.Time) (*entry, state) {
	e, ok := k.m[key]
	switch {
	case !ok:
		return nil, absent
	case e.fingerprint != fp:
		return e, reused
	case e.answer != nil:
		return e, stored
	case now.Sub(e.since) < k.ttl:
		return e, inFlight
	}
	return nil, absent
}

// claim finds key, and takes it when it is absent (or its claim abandoned).
func (k *keys) claim(key, fp string, now time.Time) (*entry, state) {
	k.mu.Lock()
	defer k.mu.Unlock()
	e, st := k.findLocked(key, fp, now)
	if st != absent {
		return e, st
	}
	e = &entry{fingerprint: fp, since: now, done: make(chan struct{})}
	k.m[key] = e
	return e, claimed
}

// store ends e's claim with its charge and answer.
func (k *keys) store(e *entry, chargeID string, answer []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	e.chargeID, e.answer = chargeID, answer
	close(e.done)
}

// release ends e's claim without a charge: the key is free again.
func (k *keys) release(key string, e *entry) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m[key] == e {
		delete(k.m, key)
	}
	close(e.done)
}

// record stores a charged key that was never claimed (late), unless the
// key already has an entry.
func (k *keys) record(key, fp, chargeID string, answer []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.m[key]; ok {
		return
	}
	e := &entry{fingerprint: fp, done: make(chan struct{}), chargeID: chargeID, answer: answer}
	close(e.done)
	k.m[key] = e
}
