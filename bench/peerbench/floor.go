package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// The floor is what a write or an edit costs with no MCP server at all:
// the same atomic replace the tools do (see replaceFile), made in this
// process on the same files, in the same run, the floor taking its turn
// with the servers round by round. -server LABEL:floor:sync gives the
// durable floor, LABEL:floor:nosync the one without syncs (as
// `mcp-acpfs serve --no-fsync`). Either with ",hold" also holds the file
// it replaces open across the rename and frees it after the call, as
// mcp-acpfs does on Linux; without, the rename frees it. Rows other than
// the writes and the edit have no floor.

// floorOpts says how the floor replaces a file.
type floorOpts struct {
	sync bool // sync the new file's data, and the directory after the rename
	hold bool // free the replaced file after the call, not in the rename
}

// parseFloor parses a floor's command: sync or nosync, and ",hold".
func parseFloor(command string) (floorOpts, error) {
	durability, hold, comma := strings.Cut(command, ",")
	o := floorOpts{sync: durability == "sync", hold: hold == "hold"}
	if durability != "sync" && durability != "nosync" || comma && !o.hold {
		return floorOpts{}, fmt.Errorf("the floor's command is sync or nosync, with ,hold or not; not %q", command)
	}
	return o, nil
}

// floorProfile is the in-process floor.
func floorProfile(fo floorOpts) profile {
	return func(id string, st runState) (*op, error) {
		switch id {
		case rowWriteSmall, rowWriteLarge:
			o, err := writeOp(st, id, "write")
			if err != nil {
				return nil, err
			}
			content := []byte(textOfSize(o.size, "written"))
			o.Call = fmt.Sprintf("in process, no MCP: %s", replaceSteps(fo))
			o.Do = func(w, _ int) error { return replaceFile(o.paths[w], content, fo) }
			return o, nil
		case rowEdit:
			o, err := editOp(st, "edit")
			if err != nil {
				return nil, err
			}
			o.Call = fmt.Sprintf("in process, no MCP: read the file, replace the line, %s", replaceSteps(fo))
			o.Do = func(w, iter int) error {
				from, to := markA, markB
				if iter%2 == 1 {
					from, to = to, from
				}
				return editFile(o.paths[w], from, to, fo)
			}
			return o, nil
		}
		return nil, nil
	}
}

// replaceFile replaces the file at p with content (replaceHeld), freeing
// a file held across the rename on a goroutine of its own, after the
// call, as mcp-acpfs does.
func replaceFile(p string, content []byte, fo floorOpts) error {
	free, err := replaceHeld(p, content, fo)
	if free != nil {
		go free()
	}
	return err
}

// editFile replaces the one occurrence of from in the file at p with to,
// and writes the file back atomically: what an edit does, less what the
// tool adds (the hashes and the diff of its result).
func editFile(p, from, to string, fo floorOpts) error {
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	i := bytes.Index(b, []byte(from))
	if i < 0 || bytes.Contains(b[i+len(from):], []byte(from)) {
		return fmt.Errorf("%s: want one occurrence of %q", p, from)
	}
	out := make([]byte, 0, len(b)-len(from)+len(to))
	out = append(append(append(out, b[:i]...), to...), b[i+len(from):]...)
	return replaceFile(p, out, fo)
}

// tmpSeq numbers the floor's temporary files.
var tmpSeq atomic.Uint64

// tmpName is the name of a temporary file beside name, as the tools
// name theirs: hidden, with a unique suffix.
func tmpName(name string) string {
	return fmt.Sprintf(".%s.tmp-%016x", filepath.Base(name), tmpSeq.Add(1))
}

// isNoSync reports whether a server's command line turns off its syncs.
func isNoSync(argv []string) bool {
	for _, a := range argv {
		if strings.TrimLeft(a, "-") == "no-fsync" {
			return true
		}
	}
	return false
}
