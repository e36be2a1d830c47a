package runtime

// ReadLines exposes the streaming line reader to the external tests.
var ReadLines = readLines
