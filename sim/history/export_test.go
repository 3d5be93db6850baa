package history

// DecodeAttempt is decodeAttempt, for the external tests.
var DecodeAttempt = decodeAttempt

// DecodeFast is decodeFast, for the external tests.
var DecodeFast = decodeFast
