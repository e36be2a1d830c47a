package fsruntime

// HashTextReader exposes the streaming text hash to the external tests.
var HashTextReader = hashText
