package check

// The client anomalies: the client half of the contract, found by
// CheckClient in a run of client mode (idemchaos serving the API, the code
// under test the client). Each is one Definition in clientBuiltin. They
// are not in the server checker's registry: a run of a server counts none
// of them, and a run of a client none of the server's.
const (
	// RetryNewKey: one operation was sent under more than one key.
	RetryNewKey Anomaly = "retry_new_key"
	// RetryWithoutKey: a retry of an operation carried no key.
	RetryWithoutKey Anomaly = "retry_without_key"
	// KeyReused: one key was sent for two operations.
	KeyReused Anomaly = "key_reused"
	// BodyChanged: one operation's key was sent with two bodies.
	BodyChanged Anomaly = "body_changed"
	// RetryAfterRefusal: a request refused for good (a mismatch or a
	// missing key) was sent again unchanged.
	RetryAfterRefusal Anomaly = "retry_after_refusal"
	// NoBackoff: a retry came at once after a 409.
	NoBackoff Anomaly = "no_backoff"
	// RetryAfterIgnored: a retry came before the Retry-After of a 429 or
	// 503 had passed.
	RetryAfterIgnored Anomaly = "retry_after_ignored"
	// ToldFailedCharged: the client told its user an operation failed
	// while its charge committed.
	ToldFailedCharged Anomaly = "told_failed_charged"
	// ToldSucceededUncharged: the client told its user an operation
	// succeeded while no charge of it committed.
	ToldSucceededUncharged Anomaly = "told_succeeded_uncharged"
)

// The ranks of the client anomalies: their index in clientBuiltin.
const (
	rankRetryNewKey = iota
	rankRetryWithoutKey
	rankToldFailedCharged
	rankToldSucceededUncharged
	rankKeyReused
	rankBodyChanged
	rankRetryAfterRefusal
	rankNoBackoff
	rankRetryAfterIgnored
	numClient
)

var clientBuiltin = [numClient]Definition{
	{
		Anomaly: RetryNewKey, Short: "nk", Kind: KindMoney,
		Title: "Retry under a new key: each try a new payment",
		What: "The client sent one operation under more than one Idempotency-Key. To the server each key is another " +
			"payment, so a retry after a lost answer charged the customer again.",
		Why: "The key is made per HTTP request (inside the retry loop, or by a layer that makes one per call) instead of " +
			"once per logical operation.",
		Avoid: "Make the key once, when the user asks to pay, keep it with the operation (persist it if the process may " +
			"restart) and send that same key on every try.",
		Cause: "The client made a key per try, not per operation, so the server could not tell a retry from a new payment.",
	},
	{
		Anomaly: RetryWithoutKey, Short: "nok", Kind: KindMoney,
		Title: "Retry without a key: a POST re-sent bare",
		What: "The client retried a charge with no Idempotency-Key. After a lost answer the server cannot know the retry " +
			"is one, and charges again.",
		Why: "A retry layer re-sends POSTs after a connection error (many do, whatever the method rules say) while nothing " +
			"in the request marks it as a retry.",
		Avoid: "Send an Idempotency-Key on every charge, made once per operation; or do not retry a POST that carries none.",
		Cause: "The client retried a charge with nothing that lets the server recognise the retry.",
	},
	{
		Anomaly: ToldFailedCharged, Short: "tfc", Kind: KindMoney,
		Title: "Told failed, charged: a lost acknowledgement on the client",
		What: "The client told its user an operation failed while its charge committed. The user will pay again, or " +
			"dispute a payment they were told never happened.",
		Why: "The client gave up (a timeout, a reset, a 409 it does not retry, its retry budget spent) and reported the " +
			"last error as the outcome, though the server may have finished the charge.",
		Avoid: "Report an operation whose outcome is unknown as pending, and settle it by retrying with the same key " +
			"(a retry gets the stored answer) or by reading the payment's state.",
		Cause: "The client turned an unknown outcome into a failure.",
	},
	{
		Anomaly: ToldSucceededUncharged, Short: "tsu", Kind: KindMoney,
		Title: "Told succeeded, not charged",
		What:  "The client told its user an operation succeeded while no charge of it committed.",
		Why: "The client read success from something other than a 2xx for its own request: an error body, a status it " +
			"treats as success, or another operation's answer.",
		Avoid: "Report success only on a 2xx answer to the operation's own request.",
		Cause: "The client reported success without a success answer.",
	},
	{
		Anomaly: KeyReused, Short: "kr", Kind: KindContract,
		Title: "One key for two operations",
		What: "The client sent the same Idempotency-Key for two different operations. The server refuses the second " +
			"(or, if it keeps no fingerprint, answers it with the first one's charge).",
		Why:   "The key is derived from something two operations share (a cart id, a user id, a timestamp in seconds) or kept in a variable that outlives its operation.",
		Avoid: "Make each operation's key unique: a random UUID (v4 or v7) made when the operation is created.",
		Cause: "The client's key named something two operations share.",
	},
	{
		Anomaly: BodyChanged, Short: "bc", Kind: KindContract,
		Title: "The body changed under one key",
		What: "The client sent one operation's key with two different bodies. The server must refuse the second " +
			"(a mismatch), and the retry fails though the operation was the same.",
		Why: "The request is rebuilt for each try with something that changes (a timestamp, a nonce, a field order " +
			"that the server's fingerprint does not ignore).",
		Avoid: "Build the request body once per operation and re-send those bytes on every try.",
		Cause: "The client rebuilt the request for a retry and it came out different.",
	},
	{
		Anomaly: RetryAfterRefusal, Short: "rar", Kind: KindContract,
		Title: "Retried a final refusal",
		What: "The client re-sent a request unchanged after the server refused it for good (the key was used for " +
			"another body, or a key is required and there was none). The same request gets the same refusal.",
		Why:   "The retry layer retries every 4xx, or every error, instead of the retriable ones.",
		Avoid: "Retry only what may succeed later (a network error, 409, 429, 503); a mismatch or a missing key needs a corrected request.",
		Cause: "The client retried an answer that cannot change.",
	},
	{
		Anomaly: NoBackoff, Short: "nb", Kind: KindContract,
		Title: "No back-off after 409",
		What: "The client retried at once after a 409 (a request with this key is still in flight), hammering a " +
			"server that is busy with the very charge it waits for.",
		Why:   "The retry loop has no delay, or retries 409 as if it were a connection error.",
		Avoid: "Back off after a 409, exponentially and with jitter, as after a 503.",
		Cause: "The client retried a 409 without waiting.",
	},
	{
		Anomaly: RetryAfterIgnored, Short: "rai", Kind: KindContract,
		Title: "Retry-After ignored",
		What:  "The client retried a 429 or 503 before the Retry-After the server sent had passed.",
		Why:   "The retry delay is the client's own schedule; the server's Retry-After is not read.",
		Avoid: "Wait at least the Retry-After of a 429 or 503 before the next try.",
		Cause: "The client did not read the server's Retry-After.",
	},
}

// ClientDefinitions lists the client anomalies' definitions, in their
// stable order.
func ClientDefinitions() []Definition { return append([]Definition(nil), clientBuiltin[:]...) }

// ClientAnomalies lists the client anomalies, in their stable order.
func ClientAnomalies() []Anomaly {
	out := make([]Anomaly, len(clientBuiltin))
	for i, d := range clientBuiltin {
		out[i] = d.Anomaly
	}
	return out
}
