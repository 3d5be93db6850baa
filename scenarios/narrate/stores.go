package narrate

import "strings"

// Participants of the sequence diagram that are stores.
const (
	redisID    = "Redis"
	postgresID = "PG"
	selfID     = "" // the replica's own memory: a note over the replica
)

// pointWords says what a strategy does at a failpoint: the sentence (with
// %[1]s the replica, %[2]s the key, %[3]s the request) and the store it talks
// to. An empty sentence means the point adds nothing worth a line (SET NX
// checks and claims in one command, say).
type pointWords struct {
	text  string
	store string
	verb  string // the message to the store, for the diagram
	reply string // what the store answers, for the diagram
}

// mechanism is how one strategy talks about its key.
type mechanism struct {
	check, claim, store pointWords
	usesRedis           bool
}

var (
	redisGet = pointWords{"%[1]s reads key %[2]s from Redis (GET): absent (%[3]s)", redisID, "GET key", "absent"}
	redisNX  = pointWords{"%[1]s claims key %[2]s in Redis (SET NX): it was free (%[3]s)", redisID, "SET NX key", "OK, claimed"}
	redisSet = pointWords{"%[1]s stores %[3]s's response (%[4]s) in Redis under key %[2]s", redisID, "SET response", ""}
	pgLock   = pointWords{"%[1]s takes the lock on key %[2]s in Postgres, in %[3]s's transaction", postgresID, "try lock key", "locked"}
	pgRead   = pointWords{"%[1]s reads key %[2]s in Postgres: absent (%[3]s)", postgresID, "SELECT key", "absent"}
	pgStore  = pointWords{"%[1]s stores %[3]s's response (%[4]s) with key %[2]s in Postgres, in the same transaction", postgresID, "store response", ""}
	memClaim = pointWords{"%[1]s claims key %[2]s in its memory: it was free (%[3]s)", selfID, "claims key in memory", ""}
	memStore = pointWords{"%[1]s keeps %[3]s's response (%[4]s) in its memory under key %[2]s", selfID, "keeps response in memory", ""}
)

// mechanisms of the built-in strategies.
var mechanisms = map[string]mechanism{
	"none":               {},
	"memory":             {check: memClaim, store: memStore},
	"redis-getset":       {check: redisGet, store: redisSet, usesRedis: true},
	"redis-setnx":        {check: redisNX, store: redisSet, usesRedis: true},
	"redis-sticky":       {check: redisNX, store: redisSet, usesRedis: true},
	"redis-cache-errors": {check: redisNX, store: redisSet, usesRedis: true},
	"pg-tx":              {check: pgRead, claim: pgLock, store: pgStore},
	"pg-nofingerprint":   {check: pgRead, claim: pgLock, store: pgStore},
	"pg-split-tx": {check: pointWords{"%[1]s commits key %[2]s as in progress in Postgres, in a first transaction: it was new (%[3]s)",
		postgresID, "INSERT key in progress", "inserted"}, store: pgStore},
	"redis-pg-guard": {check: pointWords{"%[1]s inserts key %[2]s in Postgres, in the charge's transaction: it was new (%[3]s)",
		postgresID, "INSERT key", "inserted"}, claim: pointWords{"%[1]s claims key %[2]s in Redis (SET NX) for %[3]s", redisID,
		"SET NX key", "OK, claimed"},
		store: pgStore, usesRedis: true},
}

// mechanismOf finds a strategy's words; an unknown one gets generic words.
func mechanismOf(strategy string) mechanism {
	if m, ok := mechanisms[strategy]; ok {
		return m
	}
	return mechanism{
		check:     pointWords{"%[1]s checks key %[2]s: absent (%[3]s)", selfID, "key absent", ""},
		claim:     pointWords{"%[1]s claims key %[2]s for %[3]s", selfID, "claims key", ""},
		store:     pointWords{"%[1]s stores %[3]s's response (%[4]s) under key %[2]s", selfID, "stores response", ""},
		usesRedis: strings.HasPrefix(strategy, "redis"),
	}
}
