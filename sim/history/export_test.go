package history

// DecodeAttempt is decodeAttempt, for the external tests.
var DecodeAttempt = decodeAttempt
