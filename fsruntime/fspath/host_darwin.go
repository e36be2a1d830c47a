package fspath

// hostPaths is the path syntax of the running OS.
const hostPaths = darwinPaths
