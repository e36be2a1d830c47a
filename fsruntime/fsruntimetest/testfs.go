package fsruntimetest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
)

// TestFS checks that fsys behaves as a [fsruntime.FS] must. dir is an
// absolute, clean, empty and writable directory that fsys can reach. TestFS
// creates its fixtures in dir through fsys itself. It returns every problem
// found, joined with errors.Join; nil means that fsys conforms. Each problem
// names the check that found it, the call, and what it got and expected.
//
// fsys must accept files of at least 1.5 MiB. Limits and roots are checked
// by [TestLimits] and [TestRoots].
func TestFS(ctx context.Context, fsys fsruntime.FS, dir string) error {
	t, err := newTester(ctx, fsys, dir)
	if err != nil {
		return err
	}
	t.checkRoundTrip()
	t.checkLineRange()
	t.checkPastEnd()
	t.checkNoFinalNewline()
	t.checkEmpty()
	t.checkShrink()
	t.checkEncodings()
	t.checkLongLines()
	t.checkParents()
	t.checkMissing()
	t.checkBadPaths()
	t.checkContext()
	t.checkDirectories()
	t.checkBinary()
	t.checkConcurrency()
	return t.err()
}

// checkRoundTrip writes and reads back whole files.
func (t *tester) checkRoundTrip() {
	const check = "round trip"
	p := t.path("roundtrip.txt")
	content := "hello, world\nsecond line\n"
	if t.write(check, p, content) {
		t.read(check, p, 0, 0, content)
		t.read(check, p, 1, 0, content)
		t.read(check, p, 1, -1, content)
	}
	// An overwrite of the same length.
	content = "HELLO, WORLD\nSECOND LINE\n"
	if t.write(check, p, content) {
		t.read(check, p, 0, 0, content)
	}
}

// four is a file of four lines.
const four = "one\ntwo\nthree\nfour\n"

// checkLineRange checks Zed's line and limit semantics.
func (t *tester) checkLineRange() {
	const check = "line range"
	p := t.path("lines.txt")
	if !t.write(check, p, four) {
		return
	}
	for _, tc := range []struct {
		line, limit int
		want        string
	}{
		{0, 0, four},
		{1, 0, four},
		{0, 1, "one\n"},
		{0, 2, "one\ntwo\n"},
		{1, 2, "one\ntwo\n"},
		{1, 4, four},
		{1, 100, four},
		{2, 1, "two\n"},
		{2, 2, "two\nthree\n"},
		{2, -1, "two\nthree\nfour\n"},
		{3, 0, "three\nfour\n"},
		{3, 1, "three\n"},
		{4, 0, "four\n"},
		{4, 1, "four\n"},
		{4, 10, "four\n"},
	} {
		t.read(check, p, tc.line, tc.limit, tc.want)
	}

	p = t.path("blank-lines.txt")
	const blank = "a\n\n\nb\n"
	if t.write(check, p, blank) {
		t.read(check, p, 0, 0, blank)
		t.read(check, p, 2, 1, "\n")
		t.read(check, p, 2, 2, "\n\n")
		t.read(check, p, 3, 2, "\nb\n")
		t.read(check, p, 4, 1, "b\n")
	}
}

// checkPastEnd checks that a start line past the end is an error.
func (t *tester) checkPastEnd() {
	const check = "past end"
	p := t.path("past-end.txt")
	if !t.write(check, p, four) {
		return
	}
	t.readPastEnd(check, p, 5, 0, 4)
	t.readPastEnd(check, p, 5, 1, 4)
	t.readPastEnd(check, p, 9, 0, 4)
	t.readPastEnd(check, p, 9, 3, 4)
	p = t.path("past-end-blank.txt")
	if t.write(check, p, "a\n\n\nb\n") {
		t.readPastEnd(check, p, 5, 0, 4)
	}
}

// checkNoFinalNewline checks a file whose last line has no terminator.
func (t *tester) checkNoFinalNewline() {
	const check = "no final newline"
	p := t.path("no-final-newline.txt")
	if t.write(check, p, "a\nb") {
		t.read(check, p, 0, 0, "a\nb")
		t.read(check, p, 1, 1, "a\n")
		t.read(check, p, 2, 0, "b")
		t.read(check, p, 2, 5, "b")
		t.readPastEnd(check, p, 3, 0, 2)
	}
	p = t.path("one-line.txt")
	if t.write(check, p, "x") {
		t.read(check, p, 0, 0, "x")
		t.read(check, p, 1, 1, "x")
		t.readPastEnd(check, p, 2, 0, 1)
	}
	p = t.path("newline-only.txt")
	if t.write(check, p, "\n") {
		t.read(check, p, 0, 0, "\n")
		t.read(check, p, 1, 1, "\n")
		t.readPastEnd(check, p, 2, 0, 1)
	}
}

// checkEmpty checks an empty file, which acp-go-sdk used to refuse to
// write.
func (t *tester) checkEmpty() {
	const check = "empty file"
	p := t.path("empty.txt")
	if t.write(check, p, "") {
		t.read(check, p, 0, 0, "")
		t.read(check, p, 1, 0, "")
		t.read(check, p, 1, 5, "")
		t.readPastEnd(check, p, 2, 0, 0)
	}
	p = t.path("emptied.txt")
	if t.write(check, p, "not empty\n") && t.write(check, p, "") {
		t.read(check, p, 0, 0, "")
	}
}

// checkShrink checks that a shorter overwrite leaves nothing of the old
// content.
func (t *tester) checkShrink() {
	const check = "shrink"
	p := t.path("shrink.txt")
	long := strings.Repeat("a longer line of text\n", 100)
	if t.write(check, p, long) && t.write(check, p, "short\n") {
		t.read(check, p, 0, 0, "short\n")
		t.readPastEnd(check, p, 2, 0, 1)
	}
}

// checkEncodings checks that text survives byte for byte.
func (t *tester) checkEncodings() {
	type rangeRead struct {
		line, limit int
		want        string
	}
	for _, tc := range []struct {
		check, name, content string
		ranges               []rangeRead
		lines                int
	}{
		{
			check: "UTF-8", name: "utf8.txt",
			content: "héllo wörld ✓ 日本語\nemoji 🙂, combining e\u0301, RTL שלום\n",
			ranges:  []rangeRead{{2, 1, "emoji 🙂, combining e\u0301, RTL שלום\n"}},
			lines:   2,
		},
		{
			check: "BOM", name: "bom.txt",
			content: "\uFEFFfirst\nsecond\n",
			ranges:  []rangeRead{{1, 1, "\uFEFFfirst\n"}, {2, 0, "second\n"}},
			lines:   2,
		},
		{
			check: "CRLF", name: "crlf.txt",
			content: "a\r\nb\r\nc\r\n",
			ranges:  []rangeRead{{2, 1, "b\r\n"}, {1, 2, "a\r\nb\r\n"}, {3, 0, "c\r\n"}},
			lines:   3,
		},
		{
			check: "CRLF", name: "crlf-no-final-newline.txt",
			content: "a\r\nb",
			ranges:  []rangeRead{{1, 1, "a\r\n"}, {2, 0, "b"}},
			lines:   2,
		},
		{
			check: "mixed line endings", name: "mixed.txt",
			content: "a\r\nb\nc\r\nd",
			ranges:  []rangeRead{{2, 2, "b\nc\r\n"}, {3, 1, "c\r\n"}, {4, 1, "d"}},
			lines:   4,
		},
		{
			check: "whitespace", name: "whitespace.txt",
			content: "  indented\t \n\ttab\n   \n\n",
			ranges:  []rangeRead{{3, 1, "   \n"}, {4, 0, "\n"}},
			lines:   4,
		},
	} {
		p := t.path(tc.name)
		if !t.write(tc.check, p, tc.content) {
			continue
		}
		t.read(tc.check, p, 0, 0, tc.content)
		for _, r := range tc.ranges {
			t.read(tc.check, p, r.line, r.limit, r.want)
		}
		t.readPastEnd(tc.check, p, tc.lines+1, 0, tc.lines)
	}
}

// checkLongLines checks lines far longer than any read buffer.
func (t *tester) checkLongLines() {
	const check = "long line"
	p := t.path("long-line.txt")
	long := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB, no newline
	if t.write(check, p, long) {
		t.read(check, p, 0, 0, long)
		t.read(check, p, 1, 1, long)
		t.readPastEnd(check, p, 2, 0, 1)
	}

	// 200 KiB of multi-byte runes, which cannot all align with a buffer.
	mid := strings.Repeat("日本語✓", 200<<10/12)
	content := "first\n" + mid + "\nlast\n"
	p = t.path("long-middle-line.txt")
	if t.write(check, p, content) {
		t.read(check, p, 0, 0, content)
		t.read(check, p, 2, 1, mid+"\n")
		t.read(check, p, 1, 2, "first\n"+mid+"\n")
		t.read(check, p, 2, 0, mid+"\nlast\n")
		t.read(check, p, 3, 0, "last\n")
	}
}

// checkParents checks that a write creates missing parent directories.
func (t *tester) checkParents() {
	const check = "parent directories"
	p := t.path("a", "b", "c", "new.txt")
	if t.write(check, p, "nested\n") {
		t.read(check, p, 0, 0, "nested\n")
	}
	// A sibling in a directory that now exists.
	p = t.path("a", "b", "sibling.txt")
	if t.write(check, p, "sibling\n") {
		t.read(check, p, 0, 0, "sibling\n")
	}
}

// checkMissing checks reads of files that do not exist.
func (t *tester) checkMissing() {
	const check = "missing file"
	t.readErr(check, t.path("missing.txt"), 0, 0, is(fs.ErrNotExist))
	t.readErr(check, t.path("missing.txt"), 2, 1, is(fs.ErrNotExist))
	t.readErr(check, t.path("no", "such", "dir", "file.txt"), 0, 0, is(fs.ErrNotExist))
}

// checkBadPaths checks that relative, unclean and NUL paths are refused
// and touch nothing.
func (t *tester) checkBadPaths() {
	refused := isAny(fs.ErrInvalid, fs.ErrPermission)

	check := "relative path"
	for _, p := range []string{"rel.txt", "", "sub/rel.txt"} {
		t.readErr(check, p, 0, 0, refused)
		t.writeErr(check, p, "relative\n", refused)
	}

	check = "unclean path"
	escape := t.raw("x/../../etc")
	const marker = "runtimetest: this must not have been written\n"
	t.readErr(check, escape, 0, 0, refused)
	t.writeErr(check, escape, marker, refused)
	if got, err := t.fsys.ReadTextFile(t.ctx, filepath.Clean(escape), 0, 0); err == nil && got == marker {
		t.errorf(check, "%s: was written to %q", writeCall(escape, marker), filepath.Clean(escape))
	}
	for _, rel := range []string{"x/../unclean.txt", "./unclean.txt", "unclean.txt/"} {
		unclean := t.raw(rel)
		t.writeErr(check, unclean, marker, refused)
		t.readErr(check, unclean, 0, 0, refused)
	}
	t.readErr(check, t.path("unclean.txt"), 0, 0, is(fs.ErrNotExist))
	t.readErr(check, t.path("x"), 0, 0, is(fs.ErrNotExist))
	// A file that exists, named uncleanly, is still refused.
	if p := t.path("clean.txt"); t.write(check, p, "clean\n") {
		t.readErr(check, t.raw("x/../clean.txt"), 0, 0, refused)
		t.writeErr(check, t.raw("x/../clean.txt"), marker, refused)
		t.read(check, p, 0, 0, "clean\n")
	}

	check = "NUL in path"
	nul := t.raw("nul\x00.txt")
	t.readErr(check, nul, 0, 0, is(fs.ErrInvalid))
	t.writeErr(check, nul, "nul\n", is(fs.ErrInvalid))
}

// checkContext checks that calls with a done context fail with its error
// and change nothing.
func (t *tester) checkContext() {
	check := "cancelled context"
	cancelled, cancel := context.WithCancel(t.ctx)
	cancel()
	p := t.path("context.txt")
	if t.write(check, p, "present\n") {
		t.readErrCtx(cancelled, check, p, 0, 0, is(context.Canceled))
		t.readErrCtx(cancelled, check, p, 1, 1, is(context.Canceled))
		t.writeErrCtx(cancelled, check, p, "changed\n", is(context.Canceled))
		t.read(check, p, 0, 0, "present\n")
	}
	fresh := t.path("context-new.txt")
	t.writeErrCtx(cancelled, check, fresh, "new\n", is(context.Canceled))
	t.readErr(check, fresh, 0, 0, is(fs.ErrNotExist))

	check = "expired deadline"
	expired, cancel := context.WithDeadline(t.ctx, time.Unix(0, 0))
	defer cancel()
	t.readErrCtx(expired, check, p, 0, 0, is(context.DeadlineExceeded))
	t.writeErrCtx(expired, check, fresh, "new\n", is(context.DeadlineExceeded))
}

// checkDirectories checks that directories are not read or overwritten as
// files.
func (t *tester) checkDirectories() {
	const check = "directory"
	notRegular := isAny(fsruntime.ErrNotRegular, fs.ErrInvalid)
	t.readErr(check, t.dir, 0, 0, notRegular)
	t.readErr(check, t.dir, 1, 1, notRegular)

	child := t.path("d", "child.txt")
	if !t.write(check, child, "child\n") {
		return
	}
	d := t.path("d")
	t.readErr(check, d, 0, 0, notRegular)
	t.writeErr(check, d, "replaces the directory?\n", anyError)
	t.readErr(check, d, 0, 0, notRegular) // still a directory
	t.read(check, child, 0, 0, "child\n")

	check2 := "parent is a file"
	file := t.path("file-parent.txt")
	if t.write(check2, file, "file\n") {
		under := t.path("file-parent.txt", "child.txt")
		t.writeErr(check2, under, "under a file\n", anyError)
		t.readErr(check2, under, 0, 0, anyError)
		t.read(check2, file, 0, 0, "file\n")
	}
}

// checkBinary checks that content that is not UTF-8 text is refused.
func (t *tester) checkBinary() {
	const check = "binary"
	// A NUL byte is valid UTF-8, so the write may pass, but the read must
	// not.
	p := t.path("binary-nul.txt")
	if err := t.fsys.WriteTextFile(t.ctx, p, "a\x00b"); err == nil {
		t.readErr(check, p, 0, 0, is(fsruntime.ErrBinary))
	} else {
		t.checkErr(check, writeCall(p, "a\x00b"), p, err, is(fsruntime.ErrBinary, fs.ErrInvalid))
		t.readErr(check, p, 0, 0, is(fs.ErrNotExist))
	}
	for _, bad := range []struct{ name, content string }{
		{"binary-invalid.txt", "\xff\xfe"},
		{"binary-utf16.txt", "\xff\xfeh\x00i\x00\n\x00"},
		{"binary-truncated.txt", "ok\n\xe6\x97"},
		{"binary-latin1.txt", "caf\xe9\n"},
	} {
		p := t.path(bad.name)
		t.writeErr(check, p, bad.content, is(fsruntime.ErrBinary, fs.ErrInvalid))
		t.readErr(check, p, 0, 0, is(fs.ErrNotExist))
	}
	// A refused write leaves the old content.
	p = t.path("binary-keep.txt")
	if t.write(check, p, "keep\n") {
		t.writeErr(check, p, "\xff\xfe", is(fsruntime.ErrBinary, fs.ErrInvalid))
		t.read(check, p, 0, 0, "keep\n")
	}
}

// checkConcurrency checks that concurrent reads agree and concurrent writes
// all land.
func (t *tester) checkConcurrency() {
	const n = 16
	check := "concurrent reads"
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "line %03d\n", i+1)
	}
	content := b.String()
	p := t.path("concurrent-read.txt")
	if t.write(check, p, content) {
		// Compare afterwards and report once per call, not once per
		// goroutine.
		type result struct {
			text string
			err  error
		}
		calls := []struct {
			line, limit int
			want        string
		}{{50, 20, ""}, {0, 0, content}}
		calls[0].want, _ = SliceLines(content, 50, 20)
		const rounds = 4
		results := make([][]result, n)
		var wg sync.WaitGroup
		for g := range n {
			results[g] = make([]result, rounds*len(calls))
			wg.Go(func() {
				for i := range results[g] {
					c := calls[i%len(calls)]
					text, err := t.fsys.ReadTextFile(t.ctx, p, c.line, c.limit)
					results[g][i] = result{text, err}
				}
			})
		}
		wg.Wait()
		for ci, c := range calls {
			bad, total := -1, 0
			var first result
			for g := range n {
				for i := ci; i < len(results[g]); i += len(calls) {
					total++
					if r := results[g][i]; r.err != nil || r.text != c.want {
						if bad < 0 {
							first = r
						}
						bad++
					}
				}
			}
			if bad < 0 {
				continue
			}
			call := readCall(p, c.line, c.limit)
			if first.err != nil {
				t.errorf(check, "%d of %d concurrent calls went wrong; one: %s: %v; want %s", bad+1, total, call, first.err, abbrev(c.want))
			} else {
				t.errorf(check, "%d of %d concurrent calls went wrong; one: %s = %s, want %s%s", bad+1, total, call, abbrev(first.text), abbrev(c.want), diffAt(first.text, c.want))
			}
		}
	}

	check = "concurrent writes"
	var wg sync.WaitGroup
	path := func(i int) string { return t.path("concurrent", fmt.Sprintf("w%02d.txt", i)) }
	body := func(i int) string { return strings.Repeat(fmt.Sprintf("writer %d\n", i), i+1) }
	ok := make([]bool, n)
	for i := range n {
		wg.Go(func() { ok[i] = t.write(check, path(i), body(i)) })
	}
	wg.Wait()
	for i := range n {
		if ok[i] {
			t.read(check, path(i), 0, 0, body(i))
		}
	}
}

// TestLimits checks that fsys enforces a size limit of max bytes (at least
// 1) on writes: content of exactly max bytes is written and read back, and
// content of max+1 bytes is refused with fsruntime.ErrTooLarge and changes
// nothing. dir is as for [TestFS] and may be the same directory. A file
// over the limit cannot be made through fsys, so reading one is left to
// the backend's own tests.
func TestLimits(ctx context.Context, fsys fsruntime.FS, dir string, max int64) error {
	t, err := newTester(ctx, fsys, dir)
	if err != nil {
		return err
	}
	if max < 1 {
		return fmt.Errorf("runtimetest: max is %d, want at least 1", max)
	}
	const check = "size limit"
	tooLarge := is(fsruntime.ErrTooLarge, fs.ErrInvalid)
	exact, over := textOfSize(max), textOfSize(max+1)

	p := t.path("limit-exact.txt")
	if t.write(check, p, exact) {
		t.read(check, p, 0, 0, exact)
		head, _ := SliceLines(exact, 1, 2)
		t.read(check, p, 1, 2, head)
		if n := countLines(exact); n > 1 {
			tail, _ := SliceLines(exact, n-1, 0)
			t.read(check, p, n-1, 0, tail)
		}
		// Refused, the write leaves the old content.
		t.checkTooLarge(check, p, t.writeErr(check, p, over, tooLarge), max)
		t.read(check, p, 0, 0, exact)
	}

	p = t.path("limit-over.txt")
	t.checkTooLarge(check, p, t.writeErr(check, p, over, tooLarge), max)
	t.readErr(check, p, 0, 0, is(fs.ErrNotExist))
	p = t.path("limit-over", "nested.txt")
	t.writeErr(check, p, over, tooLarge)
	t.readErr(check, p, 0, 0, is(fs.ErrNotExist))
	return t.err()
}

// checkTooLarge checks the limit in a *fsruntime.TooLargeError, if err has
// one.
func (t *tester) checkTooLarge(check, path string, err error, max int64) {
	var tl *fsruntime.TooLargeError
	if err != nil && errors.As(err, &tl) && tl.Limit != max {
		t.errorf(check, "WriteTextFile(%q): *fsruntime.TooLargeError has Limit %d, want %d", path, tl.Limit, max)
	}
}

// textOfSize returns n bytes of numbered lines; the last may be cut short.
func textOfSize(n int64) string {
	var b strings.Builder
	b.Grow(int(n) + 32)
	for i := 1; int64(b.Len()) < n; i++ {
		fmt.Fprintf(&b, "line %010d\n", i)
	}
	return b.String()[:n]
}

// TestRoots checks that fsys confines paths to its roots. inside is an
// absolute path of a file, inside the roots, that fsys may create;
// outside is an absolute path that fsys must refuse. Reads and writes of
// outside, and a write below it, must fail with an error matching
// fsruntime.ErrOutsideRoots (and so fs.ErrPermission) whether or not it
// exists. TestRoots cannot see whether a refused write touched the disk;
// a disk backend's own test should look.
func TestRoots(ctx context.Context, fsys fsruntime.FS, inside, outside string) error {
	for _, arg := range []struct{ name, path string }{{"inside", inside}, {"outside", outside}} {
		if err := checkArg(arg.name, arg.path); err != nil {
			return err
		}
	}
	t := &tester{ctx: ctx, fsys: fsys, dir: filepath.Dir(inside)}
	check := "inside roots"
	if t.write(check, inside, "inside the roots\n") {
		t.read(check, inside, 0, 0, "inside the roots\n")
	}

	check = "outside roots"
	refused := is(fsruntime.ErrOutsideRoots, fs.ErrPermission)
	t.readErr(check, outside, 0, 0, refused)
	t.readErr(check, outside, 1, 1, refused)
	t.writeErr(check, outside, "outside the roots\n", refused)
	t.writeErr(check, filepath.Join(outside+".d", "child.txt"), "outside the roots\n", refused)
	t.readErr(check, outside, 0, 0, refused)
	return t.err()
}
