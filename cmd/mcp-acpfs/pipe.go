package main

// pipeBuffer is the buffer growPipe asks for: a 1 MiB file's content in
// a tool call, or in its result, then crosses the pipe in one go.
// Linux lets any user give a pipe this much (/proc/sys/fs/pipe-max-size).
const pipeBuffer = 1 << 20
