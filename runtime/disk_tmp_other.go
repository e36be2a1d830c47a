//go:build !linux

package runtime

import (
	"io/fs"
	"os"
)

// openUnnamed fails: only Linux has O_TMPFILE. The caller uses a named
// temporary file.
func openUnnamed(*os.Root, string, fs.FileMode) (*os.File, error) { return nil, errNoUnnamed }

// linkUnnamed is never called where openUnnamed always fails.
func linkUnnamed(*os.Root, *os.File, string) error { return errNoUnnamed }
