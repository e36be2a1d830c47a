package mcpfs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
)

// errWritesNothing refuses a dry run of a call that is a dry run itself.
var errWritesNothing = errors.New("the call is a dry run: it changes nothing")

// A Change is what a call of write_text_file or edit_text_file would do to
// a file: its text now and after the call.
type Change struct {
	// Path is the file's absolute path, resolved as the tool resolves it.
	Path string
	// Old is the file's text now, as fsys reads it (the editor's buffer
	// on the editor route); "" when Created.
	Old string
	// New is its text after the call.
	New string
	// Created says that the file does not exist yet: the call creates it.
	Created bool
}

// DryRun returns what a call of tool (write_text_file or edit_text_file)
// with args, its arguments as JSON, would change, without writing: the
// file is read through fsys and the call applied to its text as the tool
// applies it, with paths resolved against workDir (and a leading ~ against
// the user's home directory) as the tool resolves them. It fails where the
// call would fail before writing: arguments the tool refuses, a file it
// cannot read, edits that do not match; and an edit_text_file call that is
// a dry run itself, which changes nothing. It does not check expectedHash,
// and takes no lock: the file may change before the call runs.
func DryRun(ctx context.Context, fsys fsruntime.FS, workDir, tool string, args json.RawMessage) (Change, error) {
	home, _ := os.UserHomeDir()
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields() // the tools' input schemas are strict
	switch tool {
	case WriteTextFile:
		var a writeArgs
		if err := dec.Decode(&a); err != nil {
			return Change{}, fmt.Errorf("invalid arguments: %w", err)
		}
		p, err := fspath.AbsFile(workDir, fspath.ExpandHome(home, a.Path))
		if err != nil {
			return Change{}, err
		}
		old, err := fsys.ReadTextFile(ctx, p, 0, 0)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return Change{Path: p, New: a.Content, Created: true}, nil
		case err != nil:
			return Change{}, err
		}
		return Change{Path: p, Old: old, New: a.Content}, nil
	case EditTextFile:
		var a editArgs
		if err := dec.Decode(&a); err != nil {
			return Change{}, fmt.Errorf("invalid arguments: %w", err)
		}
		p, err := fspath.AbsFile(workDir, fspath.ExpandHome(home, a.Path))
		if err != nil {
			return Change{}, err
		}
		if a.DryRun {
			return Change{}, errWritesNothing
		}
		if err := checkEdits(a.Edits); err != nil {
			return Change{}, err
		}
		old, err := fsys.ReadTextFile(ctx, p, 0, 0)
		if err != nil {
			return Change{}, err
		}
		updated, _, err := applyEdits(old, a.Edits)
		if err != nil {
			return Change{}, err
		}
		return Change{Path: p, Old: old, New: updated}, nil
	}
	return Change{}, fmt.Errorf("no dry run for the tool %q", tool)
}
