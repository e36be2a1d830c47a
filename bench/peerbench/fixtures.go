package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Sizes of the fixtures.
const (
	smallSize = 4 << 10 // the small read and write
	largeSize = 1 << 20 // the large read and write
	editSize  = 64 << 10
	listSize  = 1000 // entries of the listed directory

	treeDirs    = 10  // directories of the searched tree
	treeFiles   = 100 // files in each
	treeEvery   = 10  // one file in treeEvery is a .go file holding the needle
	treeFileLen = 1 << 10

	bigLines   = 10_800_000 // the 1 GiB file: bigLines lines of bigLineLen bytes
	bigLineLen = 100
	deepLine   = 10_000_000 // the deep range starts here
	rangeLines = 100        // and has this many lines
)

// needle is the text the content search looks for; it is in every .go file
// of the tree, once.
const needle = "peerbench_needle"

// Edit markers: the edit replaces one with the other, and back.
const (
	markA = "// marker: alpha\n"
	markB = "// marker: beta\n"
)

// fixtures are the files the workload uses, under one root that both
// servers are given.
type fixtures struct {
	Root    string
	Small   string // a smallSize text file
	Large   string // a largeSize text file
	ListDir string // a directory of listSize files
	Tree    string // treeDirs directories of treeFiles files
	Big     string // the 1 GiB file
	Scratch string // per-server files that writes and edits change
}

// makeFixtures creates the fixtures under cache/root. The 1 GiB file is
// made once and reused while its size is right; the rest is made afresh.
func makeFixtures(cache string, logf func(string, ...any)) (*fixtures, error) {
	root, err := filepath.Abs(filepath.Join(cache, "root"))
	if err != nil {
		return nil, err
	}
	fx := &fixtures{
		Root:    root,
		Small:   filepath.Join(root, "small-4KiB.txt"),
		Large:   filepath.Join(root, "large-1MiB.txt"),
		ListDir: filepath.Join(root, "list-1000"),
		Tree:    filepath.Join(root, "tree"),
		Big:     filepath.Join(root, "big-1GiB.txt"),
		Scratch: filepath.Join(root, "scratch"),
	}
	for _, p := range []string{fx.ListDir, fx.Tree, fx.Scratch} {
		if err := os.RemoveAll(p); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(fx.Small, []byte(textOfSize(smallSize, "small")), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(fx.Large, []byte(textOfSize(largeSize, "large")), 0o644); err != nil {
		return nil, err
	}
	if err := os.Mkdir(fx.ListDir, 0o755); err != nil {
		return nil, err
	}
	for i := range listSize {
		p := filepath.Join(fx.ListDir, fmt.Sprintf("entry-%04d.txt", i))
		if err := os.WriteFile(p, []byte("listed\n"), 0o644); err != nil {
			return nil, err
		}
	}
	for d := range treeDirs {
		dir := filepath.Join(fx.Tree, fmt.Sprintf("dir-%02d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		for f := range treeFiles {
			name, text := fmt.Sprintf("file-%03d.txt", f), textOfSize(treeFileLen, "tree")
			if f%treeEvery == 0 {
				name = fmt.Sprintf("file-%03d.go", f)
				text = needle + "\n" + text[len(needle)+1:]
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				return nil, err
			}
		}
	}
	if err := os.Mkdir(fx.Scratch, 0o755); err != nil {
		return nil, err
	}
	if err := makeBig(fx.Big, logf); err != nil {
		return nil, err
	}
	return fx, nil
}

// textOfSize returns size bytes of numbered text lines.
func textOfSize(size int, word string) string {
	var b strings.Builder
	b.Grow(size + 64)
	for i := 1; b.Len() < size; i++ {
		fmt.Fprintf(&b, "%s line %6d: the quick brown fox jumps over the lazy dog\n", word, i)
	}
	return b.String()[:size-1] + "\n"
}

// editText returns the content of an edited file: editSize bytes of code
// with markA in the middle.
func editText() string {
	half := textOfSize(editSize/2, "code")
	return half + markA + half
}

// bigLine returns line n (1-based) of the 1 GiB file.
func bigLine(n int) string {
	return fmt.Sprintf("line %08d %s\n", n, strings.Repeat("x", bigLineLen-len("line 00000000 \n")))
}

// makeBig writes the 1 GiB file unless it is there with the right size.
func makeBig(p string, logf func(string, ...any)) error {
	if info, err := os.Stat(p); err == nil && info.Size() == bigLines*bigLineLen {
		return nil
	}
	logf("generating %s (1 GiB, once)", p)
	tmp := p + ".partial"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	pad := strings.Repeat("x", bigLineLen-len("line 00000000 \n"))
	for i := 1; i <= bigLines; i++ {
		fmt.Fprintf(w, "line %08d %s\n", i, pad)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}
