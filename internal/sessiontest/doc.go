// Package sessiontest has the fixtures of the tests that go through a
// bridge session: a fake editor on the real codec, and workspaces whose
// editor buffers differ from the disk.
package sessiontest
