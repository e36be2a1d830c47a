package fsruntimetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
)

// TestFSExt checks the optional interfaces of package fsruntime that fsys
// implements, as [TestFS] checks [fsruntime.FS]; it skips, as
// testing/fstest does, those that fsys does not implement, so it returns
// nil for an FS that implements none. dir is as for TestFS, but not the one
// given to TestFS. Fixtures are made through fsys (WriteTextFile, and
// MkdirAll where fsys has it). The package doc lists the checks; symbolic
// links, which fsys cannot make, are [TestSymlinks]'s, and the roots
// [TestRootsExt]'s.
func TestFSExt(ctx context.Context, fsys fsruntime.FS, dir string) error {
	t, err := newExtTester(ctx, fsys, dir)
	if err != nil {
		return err
	}
	if t.stat != nil {
		t.checkStat()
	}
	if t.dirs != nil {
		t.checkReadDir()
		t.checkMkdirAll()
	}
	if t.walk != nil {
		t.checkWalk()
	}
	if t.move != nil {
		t.checkMove()
		t.checkRemove()
	}
	if t.bin != nil {
		t.checkReadFile()
	}
	if t.hash != nil {
		t.checkHash()
	}
	return t.err()
}

// An extTester is a tester with the optional interfaces of its FS; each is
// nil if the FS does not implement it.
type extTester struct {
	*tester
	stat fsruntime.StatFS
	dirs fsruntime.DirFS
	walk fsruntime.WalkFS
	move fsruntime.MoveFS
	bin  fsruntime.BinaryFS
	hash fsruntime.HashFS
}

func newExtTester(ctx context.Context, fsys fsruntime.FS, dir string) (*extTester, error) {
	base, err := newTester(ctx, fsys, dir)
	if err != nil {
		return nil, err
	}
	t := &extTester{tester: base}
	t.stat, _ = fsys.(fsruntime.StatFS)
	t.dirs, _ = fsys.(fsruntime.DirFS)
	t.walk, _ = fsys.(fsruntime.WalkFS)
	t.move, _ = fsys.(fsruntime.MoveFS)
	t.bin, _ = fsys.(fsruntime.BinaryFS)
	t.hash, _ = fsys.(fsruntime.HashFS)
	return t, nil
}

// statCall and the other ...Call functions below name a call as the
// problems name it.
func statCall(path string) string { return fmt.Sprintf("Stat(%q)", path) }
func readDirCall(path string, max int) string {
	return fmt.Sprintf("ReadDir(%q, max=%d)", path, max)
}
func listDirCall(path string, max int) string {
	return fmt.Sprintf("ListDir(%q, max=%d)", path, max)
}
func mkdirCall(path string) string { return fmt.Sprintf("MkdirAll(%q)", path) }
func walkCall(root string) string  { return fmt.Sprintf("Walk(%q)", root) }
func moveCall(src, dst string, overwrite bool) string {
	return fmt.Sprintf("Move(%q, %q, overwrite=%t)", src, dst, overwrite)
}
func removeCall(path string, recursive bool) string {
	return fmt.Sprintf("Remove(%q, recursive=%t)", path, recursive)
}
func readFileCall(path string, max int64) string {
	return fmt.Sprintf("ReadFile(%q, max=%d)", path, max)
}
func hashCall(path string) string { return fmt.Sprintf("HashTextFile(%q)", path) }

// ok records err, if any, as a problem of call.
func (t *extTester) ok(check, call string, err error) bool {
	if err != nil {
		t.errorf(check, "%s: %v", call, err)
		return false
	}
	return true
}

// fails expects call to have failed with err as e says, naming path.
func (t *extTester) fails(check, call, path string, err error, e expect) {
	if err == nil {
		t.errorf(check, "%s succeeded, want %s", call, e.desc)
		return
	}
	t.checkErr(check, call, path, err, e)
}

// exists reports whether there is anything at path, asking the most
// direct interface fsys has; known is false if it could not tell.
func (t *extTester) exists(path string) (exists, known bool) {
	var err error
	switch {
	case t.stat != nil:
		_, err = t.stat.Stat(t.ctx, path)
	case t.dirs != nil:
		var entries []fsruntime.FileInfo
		entries, _, err = t.dirs.ReadDir(t.ctx, filepath.Dir(path), 0)
		if err == nil {
			return slices.ContainsFunc(entries, func(e fsruntime.FileInfo) bool { return e.Name == filepath.Base(path) }), true
		}
	case t.bin != nil:
		_, err = t.bin.ReadFile(t.ctx, path, 0)
	default:
		_, err = t.fsys.ReadTextFile(t.ctx, path, 0, 0)
	}
	switch {
	case err == nil, errors.Is(err, fsruntime.ErrNotRegular):
		return true, true
	case errors.Is(err, fs.ErrNotExist):
		return false, true
	}
	return false, false
}

// expectExists checks whether there is anything at path, after what.
func (t *extTester) expectExists(check, path string, want bool, after string) {
	got, known := t.exists(path)
	switch {
	case !known:
		t.errorf(check, "after %s: cannot tell whether %q exists", after, path)
	case got && !want:
		t.errorf(check, "after %s: %q still exists", after, path)
	case !got && want:
		t.errorf(check, "after %s: %q does not exist", after, path)
	}
}

// content reads the whole file at path, as bytes where fsys can.
func (t *extTester) content(path string) (string, error) {
	if t.bin != nil {
		b, err := t.bin.ReadFile(t.ctx, path, 0)
		return string(b), err
	}
	return t.fsys.ReadTextFile(t.ctx, path, 0, 0)
}

// expectContent checks the content of the file at path, after what.
func (t *extTester) expectContent(check, path, want, after string) {
	got, err := t.content(path)
	switch {
	case err != nil:
		t.errorf(check, "after %s: reading %q: %v; want %s", after, path, err, abbrev(want))
	case got != want:
		t.errorf(check, "after %s: %q holds %s, want %s", after, path, abbrev(got), abbrev(want))
	}
}

// mkdir makes an empty directory, if fsys can.
func (t *extTester) mkdir(check, path string) bool {
	if t.dirs == nil {
		return false
	}
	return t.ok(check, mkdirCall(path), t.dirs.MkdirAll(t.ctx, path))
}

// badPaths are the paths every operation must refuse, given the name of
// an existing file in the test directory, with what they must fail with.
func (t *extTester) badPaths(existing string) []struct {
	path string
	e    expect
} {
	refused := isAny(fs.ErrInvalid, fs.ErrPermission)
	return []struct {
		path string
		e    expect
	}{
		{existing[len(t.dir)+1:], refused}, // relative
		{"", refused},
		{t.raw("x/../" + filepath.ToSlash(existing[len(t.dir)+1:])), refused},
		{existing + string(filepath.Separator), refused},
		{existing + "\x00", is(fs.ErrInvalid)},
	}
}

// cancelled returns a context that is done.
func (t *extTester) cancelled() context.Context {
	ctx, cancel := context.WithCancel(t.ctx)
	cancel()
	return ctx
}

// describe checks info against what it must say.
func (t *extTester) describe(check, call string, info fsruntime.FileInfo, path string, typ fsruntime.FileType, size int64) {
	if info.Path != path {
		t.errorf(check, "%s: Path is %q, want %q", call, info.Path, path)
	}
	if info.Name != filepath.Base(path) {
		t.errorf(check, "%s: Name is %q, want %q", call, info.Name, filepath.Base(path))
	}
	if info.Type != typ {
		t.errorf(check, "%s: Type of %q is %q, want %q", call, path, info.Type, typ)
	}
	switch typ {
	case fsruntime.TypeFile:
		if !info.Mode.IsRegular() {
			t.errorf(check, "%s: Mode of %q is %v, want a regular file", call, path, info.Mode)
		}
		if size >= 0 && info.Size != size {
			t.errorf(check, "%s: Size of %q is %d, want %d", call, path, info.Size, size)
		}
		if info.ModTime.IsZero() {
			t.errorf(check, "%s: ModTime of %q is zero", call, path)
		}
	case fsruntime.TypeDirectory:
		if !info.Mode.IsDir() {
			t.errorf(check, "%s: Mode of %q is %v, want a directory", call, path, info.Mode)
		}
	case fsruntime.TypeSymlink:
		if info.Mode&fs.ModeSymlink == 0 {
			t.errorf(check, "%s: Mode of %q is %v, want a symlink", call, path, info.Mode)
		}
		if size >= 0 && info.Size != size {
			t.errorf(check, "%s: Size of %q is %d, want %d (the length of its target)", call, path, info.Size, size)
		}
	}
}

// checkStat checks StatFS.
func (t *extTester) checkStat() {
	const check = "stat"
	file := t.path("stat", "file.txt")
	if !t.write(check, file, "hello\n") {
		return
	}
	if info, err := t.stat.Stat(t.ctx, file); t.ok(check, statCall(file), err) {
		t.describe(check, statCall(file), info, file, fsruntime.TypeFile, 6)
	}
	if t.write(check, file, "hello, longer\n") {
		if info, err := t.stat.Stat(t.ctx, file); t.ok(check, statCall(file), err) && info.Size != 14 {
			t.errorf(check, "%s after a longer write: Size is %d, want 14", statCall(file), info.Size)
		}
	}
	dir := t.path("stat")
	if info, err := t.stat.Stat(t.ctx, dir); t.ok(check, statCall(dir), err) {
		t.describe(check, statCall(dir), info, dir, fsruntime.TypeDirectory, -1)
	}
	for _, p := range []string{t.path("stat", "missing.txt"), t.path("stat", "no", "such"), t.path("stat", "file.txt", "under")} {
		_, err := t.stat.Stat(t.ctx, p)
		t.fails(check, statCall(p), p, err, is(fs.ErrNotExist))
	}
	for _, bad := range t.badPaths(file) {
		_, err := t.stat.Stat(t.ctx, bad.path)
		t.fails(check, statCall(bad.path), bad.path, err, bad.e)
	}
	_, err := t.stat.Stat(t.cancelled(), file)
	t.fails(check, statCall(file)+" with a cancelled context", file, err, is(context.Canceled))
}

// entry is a name and type, for comparing listings.
type entry struct {
	name string
	typ  fsruntime.FileType
}

func (e entry) String() string { return e.name + "(" + string(e.typ) + ")" }

func listedOf(des []fsruntime.DirEntry) []entry {
	out := make([]entry, len(des))
	for i, de := range des {
		out[i] = entry{de.Name, de.Type}
	}
	return out
}

// listed checks ListDir(path, max) against want and wantTrunc, what
// ReadDir gives.
func (t *extTester) listed(check, path string, max int, want []entry, wantTrunc bool) {
	call := listDirCall(path, max)
	des, truncated, err := t.dirs.ListDir(t.ctx, path, max)
	if !t.ok(check, call, err) {
		return
	}
	if got := listedOf(des); !slices.Equal(got, want) {
		t.errorf(check, "%s = %v, want %v", call, got, want)
	}
	if truncated != wantTrunc {
		t.errorf(check, "%s: truncated is %t, want %t", call, truncated, wantTrunc)
	}
}

func entriesOf(infos []fsruntime.FileInfo) []entry {
	out := make([]entry, len(infos))
	for i, info := range infos {
		out[i] = entry{info.Name, info.Type}
	}
	return out
}

// checkReadDir checks DirFS.ReadDir.
func (t *extTester) checkReadDir() {
	const check = "readdir"
	dir := t.path("list")
	files := map[string]string{"b.txt": "bb", "a.txt": "a", "D.txt": "DDD", "a-dir/y.txt": "y", "c/x.txt": "x"}
	for name, content := range files {
		if !t.write(check, filepath.Join(dir, filepath.FromSlash(name)), content) {
			return
		}
	}
	// Byte order: "D" < "a", and "a-dir" < "a.txt" as '-' < '.'. (No two
	// names differ only in case: they are one file where names fold case.)
	want := []entry{{"D.txt", fsruntime.TypeFile}, {"a-dir", fsruntime.TypeDirectory}, {"a.txt", fsruntime.TypeFile}, {"b.txt", fsruntime.TypeFile}, {"c", fsruntime.TypeDirectory}}
	for _, max := range []int{0, -1, 5, 6, 100, 4, 2, 1} {
		call := readDirCall(dir, max)
		infos, truncated, err := t.dirs.ReadDir(t.ctx, dir, max)
		if !t.ok(check, call, err) {
			continue
		}
		w := want
		if max > 0 && max < len(want) {
			w = want[:max]
		}
		if got := entriesOf(infos); !slices.Equal(got, w) {
			t.errorf(check, "%s = %v, want %v", call, got, w)
			continue
		}
		wantTrunc := len(w) < len(want)
		if truncated != wantTrunc {
			t.errorf(check, "%s: truncated is %t, want %t", call, truncated, wantTrunc)
		}
		t.listed(check, dir, max, w, wantTrunc)
		for _, info := range infos {
			p := filepath.Join(dir, info.Name)
			size := int64(-1)
			if content, ok := files[info.Name]; ok {
				size = int64(len(content))
			}
			t.describe(check, call, info, p, info.Type, size)
			if t.stat == nil {
				continue
			}
			if st, err := t.stat.Stat(t.ctx, p); err == nil && (st.Type != info.Type || st.Size != info.Size && info.Type == fsruntime.TypeFile) {
				t.errorf(check, "%s: the entry %q (%s, %d bytes) differs from %s (%s, %d bytes)", call, info.Name, info.Type, info.Size, statCall(p), st.Type, st.Size)
			}
		}
	}
	if empty := t.path("list-empty"); t.mkdir(check, empty) {
		infos, truncated, err := t.dirs.ReadDir(t.ctx, empty, 10)
		if t.ok(check, readDirCall(empty, 10), err) && (len(infos) != 0 || truncated) {
			t.errorf(check, "%s = %v, truncated=%t; want no entries", readDirCall(empty, 10), entriesOf(infos), truncated)
		}
		t.listed(check, empty, 10, []entry{}, false)
	}
	// Both calls must fail alike.
	fail := func(ctx context.Context, path, note string, e expect) {
		_, _, err := t.dirs.ReadDir(ctx, path, 0)
		t.fails(check, readDirCall(path, 0)+note, path, err, e)
		_, _, err = t.dirs.ListDir(ctx, path, 0)
		t.fails(check, listDirCall(path, 0)+note, path, err, e)
	}
	fail(t.ctx, filepath.Join(dir, "a.txt"), "", is(fs.ErrInvalid))
	fail(t.ctx, t.path("list", "missing"), "", is(fs.ErrNotExist))
	for _, bad := range t.badPaths(filepath.Join(dir, "c")) {
		fail(t.ctx, bad.path, "", bad.e)
	}
	fail(t.cancelled(), dir, " with a cancelled context", is(context.Canceled))
}

// checkMkdirAll checks DirFS.MkdirAll.
func (t *extTester) checkMkdirAll() {
	const check = "mkdir"
	deep := t.path("mk", "a", "b", "c")
	if !t.mkdir(check, deep) {
		return
	}
	for _, p := range []string{deep, t.path("mk", "a"), t.path("mk")} {
		if err := t.dirs.MkdirAll(t.ctx, p); err != nil {
			t.errorf(check, "%s of an existing directory: %v, want nil", mkdirCall(p), err)
		}
	}
	parent := t.path("mk", "a", "b")
	if infos, _, err := t.dirs.ReadDir(t.ctx, parent, 0); t.ok(check, readDirCall(parent, 0), err) {
		if got, want := entriesOf(infos), []entry{{"c", fsruntime.TypeDirectory}}; !slices.Equal(got, want) {
			t.errorf(check, "after %s: %s = %v, want %v", mkdirCall(deep), readDirCall(parent, 0), got, want)
		}
	}
	if t.stat != nil {
		if info, err := t.stat.Stat(t.ctx, deep); t.ok(check, statCall(deep), err) {
			t.describe(check, statCall(deep), info, deep, fsruntime.TypeDirectory, -1)
		}
	}
	inside := filepath.Join(deep, "f.txt")
	if t.write(check, inside, "in a made directory\n") {
		t.read(check, inside, 0, 0, "in a made directory\n")
	}

	file := t.path("mk", "file.txt")
	if t.write(check, file, "a file\n") {
		t.fails(check, mkdirCall(file), file, t.dirs.MkdirAll(t.ctx, file), is(fs.ErrExist))
		under := filepath.Join(file, "sub")
		t.fails(check, mkdirCall(under), under, t.dirs.MkdirAll(t.ctx, under), anyError)
		t.read(check, file, 0, 0, "a file\n")
	}
	for _, bad := range t.badPaths(t.path("mk", "bad")) {
		t.fails(check, mkdirCall(bad.path), bad.path, t.dirs.MkdirAll(t.ctx, bad.path), bad.e)
	}
	t.expectExists(check, t.path("mk", "bad"), false, "MkdirAll of bad paths")
	fresh := t.path("mk", "cancelled")
	t.fails(check, mkdirCall(fresh)+" with a cancelled context", fresh, t.dirs.MkdirAll(t.cancelled(), fresh), is(context.Canceled))
	t.expectExists(check, fresh, false, mkdirCall(fresh)+" with a cancelled context")
}

// A visit is one call of a WalkFunc.
type visit struct {
	path string
	typ  fsruntime.FileType
	err  error
}

func (v visit) String() string {
	if v.err != nil {
		return fmt.Sprintf("%s(error: %v)", v.path, v.err)
	}
	return v.path + "(" + string(v.typ) + ")"
}

// walkAll walks root, recording each call; then, if not nil, decides what
// fn returns.
func (t *extTester) walkAll(ctx context.Context, check, root string, then func(path string, info fsruntime.FileInfo, err error) error) ([]visit, error) {
	var visits []visit
	err := t.walk.Walk(ctx, root, func(path string, info fsruntime.FileInfo, err error) error {
		visits = append(visits, visit{path, info.Type, err})
		if err == nil && (info.Path != path || info.Name != filepath.Base(path)) {
			t.errorf(check, "%s: fn(%q) was given Path %q and Name %q", walkCall(root), path, info.Path, info.Name)
		}
		if then != nil {
			return then(path, info, err)
		}
		return err
	})
	return visits, err
}

// relVisits shortens the paths of visits to be relative to root.
func relVisits(root string, visits []visit) []string {
	out := make([]string, len(visits))
	for i, v := range visits {
		rel, err := filepath.Rel(root, v.path)
		if err != nil || strings.HasPrefix(rel, "..") {
			rel = v.path
		}
		v.path = filepath.ToSlash(rel)
		out[i] = v.String()
	}
	return out
}

// checkWalk checks WalkFS.
func (t *extTester) checkWalk() {
	const check = "walk"
	root := t.path("walk")
	for _, name := range []string{"a.txt", "b/c.txt", "b/d/e.txt", "f.txt", "B.txt", "a-b/g.txt"} {
		if !t.write(check, filepath.Join(root, filepath.FromSlash(name)), name+"\n") {
			return
		}
	}
	all := []string{".(directory)", "B.txt(file)", "a-b(directory)", "a-b/g.txt(file)", "a.txt(file)", "b(directory)", "b/c.txt(file)", "b/d(directory)", "b/d/e.txt(file)"}
	if t.mkdir(check, filepath.Join(root, "empty")) {
		all = append(all, "empty(directory)")
	}
	all = append(all, "f.txt(file)")
	run := func(desc string, want []string, then func(path string, info fsruntime.FileInfo, err error) error) {
		visits, err := t.walkAll(t.ctx, check, root, then)
		if !t.ok(check, walkCall(root)+" "+desc, err) {
			return
		}
		if got := relVisits(root, visits); !slices.Equal(got, want) {
			t.errorf(check, "%s %s visited\n\t%v\nwant\n\t%v", walkCall(root), desc, got, want)
		}
	}
	run("in full", all, nil)
	var skipB []string
	for _, v := range all {
		if !strings.HasPrefix(v, "b/") {
			skipB = append(skipB, v)
		}
	}
	run("with fs.SkipDir from b", skipB,
		func(path string, _ fsruntime.FileInfo, _ error) error {
			if path == filepath.Join(root, "b") {
				return fs.SkipDir
			}
			return nil
		})
	run("with fs.SkipDir from the file a-b/g.txt", []string{".(directory)", "B.txt(file)", "a-b(directory)", "a-b/g.txt(file)", "a.txt(file)"},
		func(path string, _ fsruntime.FileInfo, _ error) error {
			switch path {
			case filepath.Join(root, "a-b", "g.txt"):
				return fs.SkipDir // the rest of a-b
			case filepath.Join(root, "a.txt"):
				return fs.SkipDir // the rest of root
			}
			return nil
		})
	run("with fs.SkipAll from b/c.txt", []string{".(directory)", "B.txt(file)", "a-b(directory)", "a-b/g.txt(file)", "a.txt(file)", "b(directory)", "b/c.txt(file)"},
		func(path string, _ fsruntime.FileInfo, _ error) error {
			if path == filepath.Join(root, "b", "c.txt") {
				return fs.SkipAll
			}
			return nil
		})

	stop := errors.New("runtimetest: stop")
	_, err := t.walkAll(t.ctx, check, root, func(path string, _ fsruntime.FileInfo, _ error) error {
		if path == filepath.Join(root, "b", "d") {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.errorf(check, "%s with fn returning an error: got %v, want that error", walkCall(root), err)
	}

	file := filepath.Join(root, "a.txt")
	if visits, err := t.walkAll(t.ctx, check, file, nil); t.ok(check, walkCall(file), err) {
		if got := relVisits(root, visits); !slices.Equal(got, []string{"a.txt(file)"}) {
			t.errorf(check, "%s visited %v, want only the file", walkCall(file), got)
		}
	}
	missing := filepath.Join(root, "missing")
	visits, err := t.walkAll(t.ctx, check, missing, nil)
	t.fails(check, walkCall(missing), missing, err, is(fs.ErrNotExist))
	if len(visits) != 1 || visits[0].path != missing || !errors.Is(visits[0].err, fs.ErrNotExist) {
		t.errorf(check, "%s: fn was called with %v, want once with the root and an error", walkCall(missing), visits)
	}
	for _, bad := range t.badPaths(filepath.Join(root, "b")) {
		visits, err := t.walkAll(t.ctx, check, bad.path, nil)
		t.fails(check, walkCall(bad.path), bad.path, err, bad.e)
		for _, v := range visits {
			if v.err == nil {
				t.errorf(check, "%s: fn was called with %v", walkCall(bad.path), v)
			}
		}
	}

	visits, err = t.walkAll(t.cancelled(), check, root, nil)
	t.fails(check, walkCall(root)+" with a cancelled context", root, err, is(context.Canceled))
	for _, v := range visits {
		if v.err == nil {
			t.errorf(check, "%s with a cancelled context: fn was called with %v", walkCall(root), v)
		}
	}
	ctx, cancel := context.WithCancel(t.ctx)
	defer cancel()
	visits, err = t.walkAll(ctx, check, root, func(path string, _ fsruntime.FileInfo, err error) error {
		if path == filepath.Join(root, "a-b") {
			cancel()
		}
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.errorf(check, "%s, cancelled at a-b: got %v, want an error with errors.Is(err, context.Canceled)", walkCall(root), err)
	}
	if len(visits) > 4 {
		t.errorf(check, "%s, cancelled at a-b: went on to %v", walkCall(root), relVisits(root, visits[3:]))
	}
}

// checkMove checks MoveFS.Move.
func (t *extTester) checkMove() {
	const check = "move"
	p := func(elem ...string) string { return t.path(append([]string{"mv"}, elem...)...) }
	src, dst := p("src.txt"), p("dst.txt")
	if !t.write(check, src, "moved\n") {
		return
	}
	if call := moveCall(src, dst, false); t.ok(check, call, t.move.Move(t.ctx, src, dst, false)) {
		t.expectExists(check, src, false, call)
		t.expectContent(check, dst, "moved\n", call)
	}
	deep := p("new", "deeper", "moved.txt")
	if call := moveCall(dst, deep, false); t.ok(check, call, t.move.Move(t.ctx, dst, deep, false)) {
		t.expectExists(check, dst, false, call)
		t.expectContent(check, deep, "moved\n", call)
	}

	x, y := p("x.txt"), p("y.txt")
	if t.write(check, x, "x\n") && t.write(check, y, "y\n") {
		call := moveCall(x, y, false)
		t.fails(check, call, y, t.move.Move(t.ctx, x, y, false), is(fs.ErrExist))
		t.expectContent(check, x, "x\n", call)
		t.expectContent(check, y, "y\n", call)
		call = moveCall(x, x, false)
		t.fails(check, call, x, t.move.Move(t.ctx, x, x, false), is(fs.ErrExist))
		t.expectContent(check, x, "x\n", call)
		if call := moveCall(x, y, true); t.ok(check, call, t.move.Move(t.ctx, x, y, true)) {
			t.expectExists(check, x, false, call)
			t.expectContent(check, y, "x\n", call)
		}
	}

	d, e := p("d"), p("e")
	if t.write(check, filepath.Join(d, "1.txt"), "1\n") && t.write(check, filepath.Join(d, "sub", "2.txt"), "2\n") {
		call := moveCall(d, e, false)
		if t.ok(check, call, t.move.Move(t.ctx, d, e, false)) {
			t.expectExists(check, d, false, call)
			t.expectContent(check, filepath.Join(e, "1.txt"), "1\n", call)
			t.expectContent(check, filepath.Join(e, "sub", "2.txt"), "2\n", call)
		}
		inner := filepath.Join(e, "sub", "inner")
		call = moveCall(e, inner, false)
		t.fails(check, call, inner, t.move.Move(t.ctx, e, inner, false), is(fs.ErrInvalid))
		t.expectContent(check, filepath.Join(e, "sub", "2.txt"), "2\n", call)
	}

	// Directories over directories.
	full, other := p("full"), p("other")
	if t.write(check, filepath.Join(full, "f.txt"), "f\n") && t.write(check, filepath.Join(other, "g.txt"), "g\n") {
		call := moveCall(other, full, true)
		t.fails(check, call, full, t.move.Move(t.ctx, other, full, true), is(fs.ErrExist))
		t.expectContent(check, filepath.Join(full, "f.txt"), "f\n", call)
		t.expectContent(check, filepath.Join(other, "g.txt"), "g\n", call)
		// A file and a directory never replace each other.
		file := p("file.txt")
		if t.write(check, file, "file\n") {
			call = moveCall(file, full, true)
			t.fails(check, call, full, t.move.Move(t.ctx, file, full, true), is(fs.ErrExist))
			call = moveCall(other, file, true)
			t.fails(check, call, file, t.move.Move(t.ctx, other, file, true), is(fs.ErrExist))
			t.expectContent(check, file, "file\n", call)
			t.expectContent(check, filepath.Join(other, "g.txt"), "g\n", call)
		}
		if empty := p("empty"); t.mkdir(check, empty) {
			call = moveCall(other, empty, false)
			t.fails(check, call, empty, t.move.Move(t.ctx, other, empty, false), is(fs.ErrExist))
			call = moveCall(other, empty, true)
			if t.ok(check, call, t.move.Move(t.ctx, other, empty, true)) {
				t.expectExists(check, other, false, call)
				t.expectContent(check, filepath.Join(empty, "g.txt"), "g\n", call)
			}
		}
	}

	missing := p("missing.txt")
	t.fails(check, moveCall(missing, p("to.txt"), false), missing, t.move.Move(t.ctx, missing, p("to.txt"), false), is(fs.ErrNotExist))
	t.expectExists(check, p("to.txt"), false, moveCall(missing, p("to.txt"), false))

	stay := p("stay.txt")
	if !t.write(check, stay, "stay\n") {
		return
	}
	for _, bad := range t.badPaths(stay) {
		call := moveCall(bad.path, p("bad-dst.txt"), false)
		t.fails(check, call, bad.path, t.move.Move(t.ctx, bad.path, p("bad-dst.txt"), false), bad.e)
		call = moveCall(stay, bad.path, true)
		t.fails(check, call, bad.path, t.move.Move(t.ctx, stay, bad.path, true), bad.e)
	}
	t.expectContent(check, stay, "stay\n", "moves with bad paths")
	t.expectExists(check, p("bad-dst.txt"), false, "moves with bad paths")
	to := p("cancelled.txt")
	call := moveCall(stay, to, false) + " with a cancelled context"
	t.fails(check, call, stay, t.move.Move(t.cancelled(), stay, to, false), is(context.Canceled))
	t.expectContent(check, stay, "stay\n", call)
	t.expectExists(check, to, false, call)
}

// checkRemove checks MoveFS.Remove.
func (t *extTester) checkRemove() {
	const check = "remove"
	p := func(elem ...string) string { return t.path(append([]string{"rm"}, elem...)...) }
	file := p("file.txt")
	if t.write(check, file, "file\n") {
		if call := removeCall(file, false); t.ok(check, call, t.move.Remove(t.ctx, file, false)) {
			t.expectExists(check, file, false, call)
			t.fails(check, call+" again", file, t.move.Remove(t.ctx, file, false), is(fs.ErrNotExist))
			t.expectExists(check, p(), true, call)
		}
	}
	if file := p("file2.txt"); t.write(check, file, "file\n") {
		if call := removeCall(file, true); t.ok(check, call, t.move.Remove(t.ctx, file, true)) {
			t.expectExists(check, file, false, call)
		}
	}
	if empty := p("empty"); t.mkdir(check, empty) {
		if call := removeCall(empty, false); t.ok(check, call, t.move.Remove(t.ctx, empty, false)) {
			t.expectExists(check, empty, false, call)
		}
	}
	tree := p("tree")
	if t.write(check, filepath.Join(tree, "a.txt"), "a\n") && t.write(check, filepath.Join(tree, "sub", "b.txt"), "b\n") {
		call := removeCall(tree, false)
		t.fails(check, call, tree, t.move.Remove(t.ctx, tree, false), is(fs.ErrExist))
		t.expectContent(check, filepath.Join(tree, "sub", "b.txt"), "b\n", call)
		call = removeCall(tree, true) + " with a cancelled context"
		t.fails(check, call, tree, t.move.Remove(t.cancelled(), tree, true), is(context.Canceled))
		t.expectContent(check, filepath.Join(tree, "a.txt"), "a\n", call)
		if call := removeCall(tree, true); t.ok(check, call, t.move.Remove(t.ctx, tree, true)) {
			t.expectExists(check, filepath.Join(tree, "sub", "b.txt"), false, call)
			t.expectExists(check, tree, false, call)
			t.expectExists(check, p(), true, call)
		}
	}
	missing := p("missing")
	t.fails(check, removeCall(missing, true), missing, t.move.Remove(t.ctx, missing, true), is(fs.ErrNotExist))

	stay := p("stay.txt")
	if t.write(check, stay, "stay\n") {
		for _, bad := range t.badPaths(stay) {
			t.fails(check, removeCall(bad.path, true), bad.path, t.move.Remove(t.ctx, bad.path, true), bad.e)
		}
		t.expectContent(check, stay, "stay\n", "removals with bad paths")
	}
}

// checkReadFile checks BinaryFS.
func (t *extTester) checkReadFile() {
	const check = "readfile"
	p := t.path("bin", "file.txt")
	content := strings.Repeat("0123456789", 9) + "\r\n\uFEFFé\n"
	if !t.write(check, p, content) {
		return
	}
	n := int64(len(content))
	for _, max := range []int64{n, n + 1, 1 << 20, 0, -1} {
		call := readFileCall(p, max)
		if b, err := t.bin.ReadFile(t.ctx, p, max); t.ok(check, call, err) && string(b) != content {
			t.errorf(check, "%s = %s, want %s", call, abbrev(string(b)), abbrev(content))
		}
	}
	for _, max := range []int64{n - 1, 1} {
		call := readFileCall(p, max)
		b, err := t.bin.ReadFile(t.ctx, p, max)
		if err == nil {
			t.errorf(check, "%s returned %d bytes, want an error with errors.Is(err, fsruntime.ErrTooLarge)", call, len(b))
			continue
		}
		t.checkErr(check, call, p, err, is(fsruntime.ErrTooLarge, fs.ErrInvalid))
		if tl, ok := errors.AsType[*fsruntime.TooLargeError](err); ok && tl.Limit != max {
			t.errorf(check, "%s: *fsruntime.TooLargeError has Limit %d, want %d", call, tl.Limit, max)
		}
	}
	if empty := t.path("bin", "empty.txt"); t.write(check, empty, "") {
		if b, err := t.bin.ReadFile(t.ctx, empty, 10); t.ok(check, readFileCall(empty, 10), err) && len(b) != 0 {
			t.errorf(check, "%s = %q, want nothing", readFileCall(empty, 10), b)
		}
	}
	// A NUL byte is valid UTF-8: if the write takes it, the bytes come
	// back as they are.
	if nul := t.path("bin", "nul.bin"); t.fsys.WriteTextFile(t.ctx, nul, "a\x00b") == nil {
		if b, err := t.bin.ReadFile(t.ctx, nul, 0); t.ok(check, readFileCall(nul, 0), err) && string(b) != "a\x00b" {
			t.errorf(check, "%s = %q, want %q", readFileCall(nul, 0), b, "a\x00b")
		}
	}
	dir := t.path("bin")
	_, err := t.bin.ReadFile(t.ctx, dir, 0)
	t.fails(check, readFileCall(dir, 0), dir, err, isAny(fsruntime.ErrNotRegular, fs.ErrInvalid))
	missing := t.path("bin", "missing")
	_, err = t.bin.ReadFile(t.ctx, missing, 0)
	t.fails(check, readFileCall(missing, 0), missing, err, is(fs.ErrNotExist))
	for _, bad := range t.badPaths(p) {
		_, err := t.bin.ReadFile(t.ctx, bad.path, 0)
		t.fails(check, readFileCall(bad.path, 0), bad.path, err, bad.e)
	}
	_, err = t.bin.ReadFile(t.cancelled(), p, 0)
	t.fails(check, readFileCall(p, 0)+" with a cancelled context", p, err, is(context.Canceled))
}

// checkHash checks HashFS.
func (t *extTester) checkHash() {
	const check = "hash"
	long := strings.Repeat("日本語✓ and some ASCII\r\n", 200<<10/30)
	for _, tc := range []struct{ name, content string }{
		{"empty.txt", ""},
		{"one.txt", "a\n"},
		{"crlf.txt", "a\r\nb\r\n"},
		{"bom.txt", "\uFEFFbom\n"},
		{"no-newline.txt", "no newline"},
		{"long.txt", long},
	} {
		p := t.path("hash", tc.name)
		if !t.write(check, p, tc.content) {
			continue
		}
		got, err := t.hash.HashTextFile(t.ctx, p)
		if !t.ok(check, hashCall(p), err) {
			continue
		}
		text, err := t.fsys.ReadTextFile(t.ctx, p, 0, 0)
		if !t.ok(check, readCall(p, 0, 0), err) {
			continue
		}
		sum := sha256.Sum256([]byte(text))
		if want := hex.EncodeToString(sum[:]); got != want {
			t.errorf(check, "%s = %q, want %q, the lowercase hex SHA-256 of what %s returns", hashCall(p), got, want, readCall(p, 0, 0))
		}
		if got != fsruntime.HashText(text) {
			t.errorf(check, "%s = %q, want fsruntime.HashText of the text, %q", hashCall(p), got, fsruntime.HashText(text))
		}
	}
	p := t.path("hash", "changes.txt")
	if t.write(check, p, "before\n") {
		before, err1 := t.hash.HashTextFile(t.ctx, p)
		if t.write(check, p, "after\n") {
			after, err2 := t.hash.HashTextFile(t.ctx, p)
			if t.ok(check, hashCall(p), errors.Join(err1, err2)) && (before == after || after != fsruntime.HashText("after\n")) {
				t.errorf(check, "%s = %q before a write and %q after it, want %q", hashCall(p), before, after, fsruntime.HashText("after\n"))
			}
		}
	}
	if nul := t.path("hash", "nul.bin"); t.fsys.WriteTextFile(t.ctx, nul, "a\x00b") == nil {
		_, err := t.hash.HashTextFile(t.ctx, nul)
		t.fails(check, hashCall(nul), nul, err, is(fsruntime.ErrBinary))
	}
	dir := t.path("hash")
	_, err := t.hash.HashTextFile(t.ctx, dir)
	t.fails(check, hashCall(dir), dir, err, isAny(fsruntime.ErrNotRegular, fs.ErrInvalid))
	missing := t.path("hash", "missing.txt")
	_, err = t.hash.HashTextFile(t.ctx, missing)
	t.fails(check, hashCall(missing), missing, err, is(fs.ErrNotExist))
	for _, bad := range t.badPaths(p) {
		_, err := t.hash.HashTextFile(t.ctx, bad.path)
		t.fails(check, hashCall(bad.path), bad.path, err, bad.e)
	}
	_, err = t.hash.HashTextFile(t.cancelled(), p)
	t.fails(check, hashCall(p)+" with a cancelled context", p, err, is(context.Canceled))
}

// TestSymlinks checks how the optional interfaces of fsys treat symbolic
// links, which fsys cannot make: symlink(oldname, newname) makes a link at
// newname, an absolute path, whose target is oldname, as os.Symlink does
// for a disk. dir is as for [TestFSExt]. The links made point inside dir.
// The package doc lists the checks.
func TestSymlinks(ctx context.Context, fsys fsruntime.FS, dir string, symlink func(oldname, newname string) error) error {
	t, err := newExtTester(ctx, fsys, dir)
	if err != nil {
		return err
	}
	const check = "symlink"
	target, targetDir := t.path("target.txt"), t.path("target-dir")
	if !t.write(check, target, "target\n") || !t.write(check, filepath.Join(targetDir, "inner.txt"), "inner\n") {
		return t.err()
	}
	links := []struct{ name, target string }{
		{"link-file", "target.txt"},
		{"link-dir", "target-dir"},
		{"link-dir2", "target-dir"},
		{"link-over", "target-dir"},
		{"dangling", "missing.txt"},
	}
	for _, l := range links {
		if err := symlink(l.target, t.path(l.name)); err != nil {
			return fmt.Errorf("runtimetest: making the symlink %s: %w", t.path(l.name), err)
		}
	}
	link, linkDir := t.path("link-file"), t.path("link-dir")

	if t.stat != nil {
		for _, l := range links {
			p := t.path(l.name)
			if info, err := t.stat.Stat(t.ctx, p); t.ok(check, statCall(p), err) {
				t.describe(check, statCall(p), info, p, fsruntime.TypeSymlink, int64(len(l.target)))
			}
		}
	}
	if t.dirs != nil {
		call := readDirCall(t.dir, 0)
		if infos, _, err := t.dirs.ReadDir(t.ctx, t.dir, 0); t.ok(check, call, err) {
			want := []entry{{"dangling", fsruntime.TypeSymlink}, {"link-dir", fsruntime.TypeSymlink}, {"link-dir2", fsruntime.TypeSymlink},
				{"link-file", fsruntime.TypeSymlink}, {"link-over", fsruntime.TypeSymlink}, {"target-dir", fsruntime.TypeDirectory}, {"target.txt", fsruntime.TypeFile}}
			if got := entriesOf(infos); !slices.Equal(got, want) {
				t.errorf(check, "%s = %v, want %v", call, got, want)
			}
			t.listed(check, t.dir, 0, want, false)
			for _, info := range infos {
				if info.Name == "link-file" && info.Size != int64(len("target.txt")) {
					t.errorf(check, "%s: the link %q has Size %d, want %d", call, info.Name, info.Size, len("target.txt"))
				}
			}
		}
		call = readDirCall(linkDir, 0)
		if infos, _, err := t.dirs.ReadDir(t.ctx, linkDir, 0); t.ok(check, call, err) {
			want := []entry{{"inner.txt", fsruntime.TypeFile}}
			t.listed(check, linkDir, 0, want, false)
			if got := entriesOf(infos); !slices.Equal(got, want) {
				t.errorf(check, "%s = %v, want the target's %v", call, got, want)
			} else if infos[0].Path != filepath.Join(linkDir, "inner.txt") {
				t.errorf(check, "%s: entry Path is %q, want %q", call, infos[0].Path, filepath.Join(linkDir, "inner.txt"))
			}
		}
		t.ok(check, mkdirCall(linkDir), t.dirs.MkdirAll(t.ctx, linkDir))
		dangling := t.path("dangling")
		t.fails(check, mkdirCall(dangling), dangling, t.dirs.MkdirAll(t.ctx, dangling), anyError)
		t.expectExists(check, t.path("missing.txt"), false, mkdirCall(dangling))
	}
	if t.walk != nil {
		visits, err := t.walkAll(t.ctx, check, t.dir, nil)
		want := []string{".(directory)", "dangling(symlink)", "link-dir(symlink)", "link-dir2(symlink)", "link-file(symlink)", "link-over(symlink)",
			"target-dir(directory)", "target-dir/inner.txt(file)", "target.txt(file)"}
		if t.ok(check, walkCall(t.dir), err) {
			if got := relVisits(t.dir, visits); !slices.Equal(got, want) {
				t.errorf(check, "%s visited\n\t%v\nwant\n\t%v (links reported, never followed)", walkCall(t.dir), got, want)
			}
		}
		visits, err = t.walkAll(t.ctx, check, linkDir, nil)
		if t.ok(check, walkCall(linkDir), err) {
			if got, want := relVisits(t.dir, visits), []string{"link-dir(directory)", "link-dir/inner.txt(file)"}; !slices.Equal(got, want) {
				t.errorf(check, "%s visited %v, want %v (a root that is a link is walked)", walkCall(linkDir), got, want)
			}
		}
	}
	if t.bin != nil {
		if b, err := t.bin.ReadFile(t.ctx, link, 0); t.ok(check, readFileCall(link, 0), err) && string(b) != "target\n" {
			t.errorf(check, "%s = %q, want the target's %q", readFileCall(link, 0), b, "target\n")
		}
		dangling := t.path("dangling")
		_, err := t.bin.ReadFile(t.ctx, dangling, 0)
		t.fails(check, readFileCall(dangling, 0), dangling, err, is(fs.ErrNotExist))
	}
	if t.hash != nil {
		if got, err := t.hash.HashTextFile(t.ctx, link); t.ok(check, hashCall(link), err) && got != fsruntime.HashText("target\n") {
			t.errorf(check, "%s = %q, want the hash of the target, %q", hashCall(link), got, fsruntime.HashText("target\n"))
		}
	}
	if t.move != nil {
		moved := t.path("moved-link")
		if call := moveCall(link, moved, false); t.ok(check, call, t.move.Move(t.ctx, link, moved, false)) {
			t.expectExists(check, link, false, call)
			t.expectContent(check, target, "target\n", call)
			t.expectContent(check, moved, "target\n", call+", through the moved link")
			if t.stat != nil {
				if info, err := t.stat.Stat(t.ctx, moved); t.ok(check, statCall(moved), err) && info.Type != fsruntime.TypeSymlink {
					t.errorf(check, "after %s: %s is a %s, want a symlink", call, statCall(moved), info.Type)
				}
			}
		}
		over, src := t.path("link-over"), t.path("over.txt")
		if t.write(check, src, "over\n") {
			call := moveCall(src, over, false)
			t.fails(check, call, over, t.move.Move(t.ctx, src, over, false), is(fs.ErrExist))
			call = moveCall(src, over, true)
			if t.ok(check, call, t.move.Move(t.ctx, src, over, true)) {
				t.expectContent(check, over, "over\n", call)
				t.expectContent(check, filepath.Join(targetDir, "inner.txt"), "inner\n", call)
			}
		}
		for _, recursive := range []bool{true, false} {
			p := t.path("link-dir2")
			if !recursive {
				p = t.path("dangling")
			}
			call := removeCall(p, recursive)
			if t.ok(check, call, t.move.Remove(t.ctx, p, recursive)) {
				t.expectExists(check, p, false, call)
				t.expectContent(check, filepath.Join(targetDir, "inner.txt"), "inner\n", call)
			}
		}
		call := removeCall(linkDir, false)
		if t.ok(check, call, t.move.Remove(t.ctx, linkDir, false)) {
			t.expectExists(check, linkDir, false, call)
			t.expectExists(check, targetDir, true, call)
		}
	}
	return t.err()
}

// TestRootsExt checks that the optional interfaces of fsys keep to its
// roots, as [TestRoots] does for reads and writes. root is one of the roots
// of fsys, an existing directory, in which it makes a directory
// "rootsext"; outside is an absolute path that fsys must refuse. Every
// operation on outside, and every move from or to it, must fail with an
// error that names it and matches fsruntime.ErrOutsideRoots (and so
// fs.ErrPermission). root can be neither removed (recursive or not), moved,
// nor replaced by a move: that fails with fs.ErrPermission, root unchanged.
func TestRootsExt(ctx context.Context, fsys fsruntime.FS, root, outside string) error {
	for _, arg := range []struct{ name, path string }{{"root", root}, {"outside", outside}} {
		if err := checkArg(arg.name, arg.path); err != nil {
			return err
		}
	}
	t, err := newExtTester(ctx, fsys, root)
	if err != nil {
		return err
	}
	const check = "outside roots"
	refused := is(fsruntime.ErrOutsideRoots, fs.ErrPermission)
	in := t.path("rootsext", "in.txt")
	if !t.write("inside roots", in, "inside\n") {
		return t.err()
	}
	if t.stat != nil {
		_, err := t.stat.Stat(t.ctx, outside)
		t.fails(check, statCall(outside), outside, err, refused)
	}
	if t.dirs != nil {
		_, _, err := t.dirs.ReadDir(t.ctx, outside, 0)
		t.fails(check, readDirCall(outside, 0), outside, err, refused)
		_, _, err = t.dirs.ListDir(t.ctx, outside, 0)
		t.fails(check, listDirCall(outside, 0), outside, err, refused)
		t.fails(check, mkdirCall(outside), outside, t.dirs.MkdirAll(t.ctx, outside), refused)
		sub := filepath.Join(outside, "sub")
		t.fails(check, mkdirCall(sub), sub, t.dirs.MkdirAll(t.ctx, sub), refused)
	}
	if t.walk != nil {
		visits, err := t.walkAll(t.ctx, check, outside, nil)
		t.fails(check, walkCall(outside), outside, err, refused)
		for _, v := range visits {
			if v.err == nil {
				t.errorf(check, "%s: fn was called with %v", walkCall(outside), v)
			}
		}
	}
	if t.bin != nil {
		_, err := t.bin.ReadFile(t.ctx, outside, 0)
		t.fails(check, readFileCall(outside, 0), outside, err, refused)
	}
	if t.hash != nil {
		_, err := t.hash.HashTextFile(t.ctx, outside)
		t.fails(check, hashCall(outside), outside, err, refused)
	}
	if t.move == nil {
		return t.err()
	}
	for _, overwrite := range []bool{false, true} {
		t.fails(check, moveCall(in, outside, overwrite), outside, t.move.Move(t.ctx, in, outside, overwrite), refused)
		t.fails(check, moveCall(outside, in, overwrite), outside, t.move.Move(t.ctx, outside, in, overwrite), refused)
		t.fails(check, removeCall(outside, overwrite), outside, t.move.Remove(t.ctx, outside, overwrite), refused)
	}
	t.expectContent(check, in, "inside\n", "moves and removals outside the roots")

	const rootCheck = "root itself"
	denied := is(fs.ErrPermission)
	for _, recursive := range []bool{false, true} {
		t.fails(rootCheck, removeCall(root, recursive), root, t.move.Remove(t.ctx, root, recursive), denied)
	}
	for _, overwrite := range []bool{false, true} {
		dst := t.path("rootsext", "moved-root")
		t.fails(rootCheck, moveCall(root, dst, overwrite), root, t.move.Move(t.ctx, root, dst, overwrite), denied)
		// Both paths are at fault: either may be named.
		call := moveCall(root, outside, overwrite)
		err := t.move.Move(t.ctx, root, outside, overwrite)
		if pe, ok := errors.AsType[*fs.PathError](err); ok && pe.Path == outside {
			t.fails(rootCheck, call, outside, err, denied)
		} else {
			t.fails(rootCheck, call, root, err, denied)
		}
	}
	t.fails(rootCheck, moveCall(in, root, true), root, t.move.Move(t.ctx, in, root, true), denied)
	t.expectContent(rootCheck, in, "inside\n", "moves and removals of the root")
	t.expectExists(rootCheck, t.path("rootsext", "moved-root"), false, "moves of the root")
	return t.err()
}
