package narrate

import "github.com/idemchaos/idemchaos/targets/strategy/design"

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
	// sql names the SQL store: Postgres, or InnoDB for a strategy there
	// (the diagram's participant PG either way).
	sql string
	// keepsFirst: the store step leaves a response already stored as it
	// is (INSERT ... ON CONFLICT DO NOTHING) instead of replacing it.
	keepsFirst bool
	// standby: the check reads the hot standby, which may be behind.
	standby bool
	// debitApart: the debit committed in a transaction before the one
	// about to commit.
	debitApart bool
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

// stepWords are the words of each step a strategy may take.
var stepWords = map[design.Step]pointWords{
	design.MemoryClaim:         memClaim,
	design.MemoryStore:         memStore,
	design.RedisGet:            redisGet,
	design.RedisSetNX:          redisNX,
	design.RedisGuard:          {"%[1]s claims key %[2]s in Redis (SET NX) for %[3]s", redisID, "SET NX key", "OK, claimed"},
	design.RedisStore:          redisSet,
	design.PostgresRead:        pgRead,
	design.StandbyRead:         {"%[1]s reads key %[2]s on the Postgres hot standby: absent (%[3]s)", postgresID, "SELECT key on the standby", "absent"},
	design.PostgresLock:        pgLock,
	design.PostgresSessionLock: {"%[1]s takes the lock on key %[2]s in Postgres, for %[3]s's connection", postgresID, "try lock key (session)", "locked"},
	design.PostgresInProgress:  {"%[1]s commits key %[2]s as in progress in Postgres, in a first transaction: it was new (%[3]s)", postgresID, "INSERT key in progress", "inserted"},
	design.PostgresInsert:      {"%[1]s inserts key %[2]s in Postgres, in the charge's transaction: it was new (%[3]s)", postgresID, "INSERT key", "inserted"},
	design.PostgresStore:       pgStore,
	design.InnoDBRead:          {"%[1]s reads key %[2]s in InnoDB: absent (%[3]s)", postgresID, "SELECT key", "absent"},
	design.InnoDBInsertNoWait:  {"%[1]s inserts key %[2]s in InnoDB without waiting on a duplicate in flight, in the charge's transaction: it was new (%[3]s)", postgresID, "INSERT key (no wait)", "inserted"},
	design.InnoDBInsert:        {"%[1]s inserts key %[2]s in InnoDB, in the charge's transaction: it was new (%[3]s)", postgresID, "INSERT key", "inserted"},
	design.InnoDBInsertIgnore: {"%[1]s claims key %[2]s in InnoDB with INSERT IGNORE: inserted, or taken by a commit its snapshot does not show, which it takes for a free key (%[3]s)",
		postgresID, "INSERT IGNORE key", "1 row, or 0 unseen"},
	design.InnoDBLockingRead: {"%[1]s reads key %[2]s in InnoDB with SELECT ... FOR UPDATE: absent, its gap locked (%[3]s)", postgresID, "SELECT key FOR UPDATE", "absent, gap locked"},
	design.InnoDBSessionLock: {"%[1]s takes GET_LOCK on key %[2]s in InnoDB, for %[3]s's pooled connection", postgresID, "GET_LOCK key", "1, locked"},
	design.InnoDBStore:       {"%[1]s stores %[3]s's response (%[4]s) with key %[2]s in InnoDB, in the same transaction", postgresID, "store response", ""},
	design.PostgresStoreAfter: {"%[1]s writes key %[2]s with %[3]s's response (%[4]s) in Postgres, after the charge, in the same transaction (ON CONFLICT DO NOTHING)",
		postgresID, "INSERT key, response", ""},
}

// sqlName names a strategy's SQL store.
func sqlName(info design.Info) string {
	if info.MySQL {
		return "InnoDB"
	}
	return "Postgres"
}

// generic are the words of a strategy the catalog does not know.
var generic = mechanism{
	check: pointWords{"%[1]s checks key %[2]s: absent (%[3]s)", selfID, "key absent", ""},
	claim: pointWords{"%[1]s claims key %[2]s for %[3]s", selfID, "claims key", ""},
	store: pointWords{"%[1]s stores %[3]s's response (%[4]s) under key %[2]s", selfID, "stores response", ""},
	sql:   "Postgres",
}

// mechanismOf finds a strategy's words from the steps its design takes;
// one the catalog does not know gets generic words.
func mechanismOf(strategy string) mechanism {
	info, err := design.Lookup(strategy)
	if err != nil {
		return generic
	}
	return mechanism{check: stepWords[info.Steps.Check], claim: stepWords[info.Steps.Claim],
		store: stepWords[info.Steps.Store], usesRedis: info.Redis, sql: sqlName(info),
		keepsFirst: info.Steps.Store == design.PostgresStoreAfter, standby: info.Steps.Check == design.StandbyRead,
		debitApart: info.Steps.Debit == design.PostgresDebitApart}
}
