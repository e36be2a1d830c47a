package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
)

// Caps of the searches.
const (
	// DefaultGlobResults is the number of entries Glob returns when its
	// max is not positive.
	DefaultGlobResults = 1000
	// DefaultGrepResults is the number of matching lines Grep returns
	// when GrepOptions.MaxResults is not positive.
	DefaultGrepResults = 200
	// MaxGrepResults is the most matching lines GrepOptions.MaxResults may
	// ask for; more is capped to it.
	MaxGrepResults = 2000
	// MaxGrepLineLen is the most bytes of a matching line that Grep
	// returns; a longer line is cut, at a character boundary, and marked
	// with GrepLineCut.
	MaxGrepLineLen = 500
	// GrepLineCut ends the text of a matching line that was cut.
	GrepLineCut = " …[line cut]"
)

// SkippedDirs are the directories a search does not enter unless its
// pattern names them: version control, dependencies and build output. The
// directory searched may itself be one of them, or lie inside one.
var SkippedDirs = []string{".git", "node_modules", "dist", "build", "__pycache__", ".next"}

// searchSkips reports whether a search leaves out the directory name: it is one
// of SkippedDirs, and mention (the search's patterns) does not name it.
func searchSkips(name, mention string) bool {
	for _, s := range SkippedDirs {
		if name == s {
			return !strings.Contains(mention, s)
		}
	}
	return false
}

// A PatternError reports a glob pattern or regular expression that is not
// valid. It matches fs.ErrInvalid and the compiler's own error, if any.
type PatternError struct {
	Kind    string // "glob pattern", "include pattern" or "regular expression"
	Pattern string
	Err     error // the compiler's error, or one saying what is wrong
}

func (e *PatternError) Error() string {
	return fmt.Sprintf("invalid %s %q: %v", e.Kind, e.Pattern, e.Err)
}

func (e *PatternError) Unwrap() []error { return []error{e.Err, fs.ErrInvalid} }

// invalid wraps a message so that it matches fs.ErrInvalid.
type invalid struct{ err error }

func (e invalid) Error() string { return e.err.Error() }
func (e invalid) Unwrap() error { return fs.ErrInvalid }

// errSearchNotDir is the error of a glob whose directory is a file.
var errSearchNotDir = invalid{errors.New("not a directory (glob searches a directory: give it as path, and the file names in the pattern)")}

// errSearchSymlink is the error of a search whose root a fsruntime.WalkFS reports as
// a symlink, not resolving it as it should.
var errSearchSymlink = invalid{errors.New("it is a symbolic link, which a search does not follow; give the path of its target")}

// GlobResult is what Glob found.
type GlobResult struct {
	// Root is the directory walked: the directory given, or the literal
	// directory an absolute pattern (or a pattern's leading literal
	// components) names.
	Root string
	// Matches are the entries that match, in walk order, at most the cap.
	Matches []fsruntime.FileInfo
	// Truncated reports that more entries match than were returned.
	Truncated bool
}

// Glob returns the entries under dir whose path relative to dir matches
// pattern: doublestar syntax (*, ?, [...], {a,b}, ** across directories,
// and "x/**" also matches x) with / as the separator; an absolute pattern
// is matched from the file system's root, not dir. At most max entries
// (max <= 0: DefaultGlobResults); SkippedDirs are left out unless the
// pattern names them; symlinks match, never followed. An error reaching
// dir, which must be a directory, is Glob's; a missing literal prefix of
// pattern gives no matches; unreadable directories below dir are skipped.
func Glob(ctx context.Context, fsys fsruntime.WalkFS, dir, pattern string, max int) (GlobResult, error) {
	if max <= 0 {
		max = DefaultGlobResults
	}
	if pattern == "" || !doublestar.ValidatePattern(pattern) {
		return GlobResult{}, &PatternError{Kind: "glob pattern", Pattern: pattern, Err: badGlobReason(pattern)}
	}
	// Split off the literal leading components: they name the directory
	// to walk, which may also climb out with "..". An absolute pattern
	// starts with /, or on Windows with a volume and / (C:/, //srv/share/);
	// there /x is on dir's drive.
	vol := filepath.VolumeName(pattern)
	abs := strings.HasPrefix(pattern[len(vol):], "/") || len(vol) > 2 && len(vol) == len(pattern) // a share
	if !abs {
		vol = "" // C:x is a name, refused as one
	}
	p := strings.TrimRight(pattern[len(vol):], "/")
	if abs && vol == "" {
		vol = filepath.VolumeName(dir)
	}
	for strings.HasPrefix(p, "./") {
		p = strings.TrimLeft(p[2:], "/")
	}
	base, rest := doublestar.SplitPattern(p)
	switch {
	case abs && p == "":
		base, rest = "/", ""
	case p == "" || p == ".":
		base, rest = ".", ""
	}
	var root string
	switch {
	case abs:
		root = filepath.Clean(filepath.FromSlash(vol + base))
	case base == ".":
		root = dir
	default:
		root = filepath.Join(dir, filepath.FromSlash(base))
	}
	if !abs && root != dir {
		// A missing literal prefix is no match, but dir itself must be
		// valid.
		if err := globCheckDir(ctx, fsys, dir); err != nil {
			return GlobResult{}, err
		}
	}
	res := GlobResult{Root: root, Matches: []fsruntime.FileInfo{}}
	if rest == "" {
		// The pattern is literal and names root itself.
		info, err := walkRootInfo(ctx, fsys, root)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return res, nil
		case err != nil:
			return GlobResult{}, err
		}
		res.Root = filepath.Dir(root)
		res.Matches = append(res.Matches, info)
		return res, nil
	}
	prune := newGlobPruner(rest)
	err := fsys.Walk(ctx, root, func(path string, info fsruntime.FileInfo, err error) error {
		if path == root {
			if err != nil {
				return err
			}
			switch info.Type {
			case fsruntime.TypeDirectory:
			case fsruntime.TypeSymlink:
				return &fs.PathError{Op: "glob", Path: path, Err: errSearchSymlink}
			default:
				return &fs.PathError{Op: "glob", Path: path, Err: errSearchNotDir}
			}
			// The directory the literal prefix names matches itself
			// for a pattern such as "src/**".
			if root != dir && doublestar.MatchUnvalidated(p, base) {
				res.Matches = append(res.Matches, info)
			}
			return nil
		}
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			return nil // an unreadable directory below root: skip it
		}
		rel, ok := searchRel(root, path)
		if !ok {
			return nil
		}
		isDir := info.Type == fsruntime.TypeDirectory
		if isDir && searchSkips(info.Name, pattern) {
			return fs.SkipDir
		}
		if doublestar.MatchUnvalidated(rest, rel) {
			if len(res.Matches) == max {
				res.Truncated = true
				return fs.SkipAll
			}
			res.Matches = append(res.Matches, info)
		}
		if isDir && !prune.mayMatchBelow(rel) {
			return fs.SkipDir
		}
		return nil
	})
	if errors.Is(err, fs.SkipAll) {
		err = nil
	}
	if err != nil {
		if !abs && root != dir && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, errSearchNotDir)) {
			// The pattern's literal prefix names nothing walkable.
			return GlobResult{Root: root, Matches: []fsruntime.FileInfo{}}, nil
		}
		return GlobResult{}, err
	}
	return res, nil
}

func badGlobReason(pattern string) error {
	if pattern == "" {
		return errors.New("the pattern is empty")
	}
	return errors.New("unbalanced [ ] or { }, or a bad character class")
}

// searchRel returns path relative to root with / separators.
func searchRel(root, path string) (string, bool) {
	if len(path) <= len(root) || !strings.HasPrefix(path, root) {
		return "", false
	}
	rel := path[len(root):]
	if rel[0] == filepath.Separator {
		rel = rel[1:]
	} else if root != string(filepath.Separator) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// walkRootInfo describes path as a walk resolves it (a symlink to a directory
// is walked): the first call of a walk is for its root.
func walkRootInfo(ctx context.Context, fsys fsruntime.WalkFS, path string) (fsruntime.FileInfo, error) {
	var info fsruntime.FileInfo
	err := fsys.Walk(ctx, path, func(_ string, fi fsruntime.FileInfo, err error) error {
		if err != nil {
			return err
		}
		info = fi
		return fs.SkipAll
	})
	return info, err
}

// globCheckDir returns an error unless path is a directory.
func globCheckDir(ctx context.Context, fsys fsruntime.WalkFS, path string) error {
	info, err := walkRootInfo(ctx, fsys, path)
	switch {
	case err != nil:
		return err
	case info.Type == fsruntime.TypeSymlink:
		return &fs.PathError{Op: "glob", Path: path, Err: errSearchSymlink}
	case info.Type != fsruntime.TypeDirectory:
		return &fs.PathError{Op: "glob", Path: path, Err: errSearchNotDir}
	}
	return nil
}

// maxGlobAlternatives bounds the brace expansion of a pattern for pruning; a
// pattern with more alternatives is walked without pruning.
const maxGlobAlternatives = 256

// A globPruner decides which directories a glob need not enter: those whose
// path cannot be the start of a match of any alternative of the pattern.
type globPruner struct {
	alts [][]string // the segments of each brace-free alternative; nil: never prune
}

func newGlobPruner(pattern string) globPruner {
	if strings.Contains(pattern, `\/`) {
		return globPruner{}
	}
	alts, ok := globAlternatives(pattern, maxGlobAlternatives)
	if !ok {
		return globPruner{}
	}
	var p globPruner
	for _, a := range alts {
		segs := strings.Split(a, "/")
		for _, s := range segs {
			if s == "" {
				return globPruner{} // an empty alternative made "a//b": leave it to doublestar
			}
		}
		p.alts = append(p.alts, segs)
	}
	return p
}

// mayMatchBelow reports whether an entry below the directory rel (slash
// separated, relative to the walk's root) may match.
func (p globPruner) mayMatchBelow(rel string) bool {
	if p.alts == nil {
		return true
	}
	dirSegs := strings.Split(rel, "/")
	for _, segs := range p.alts {
		if globPrefixMatch(segs, dirSegs) {
			return true
		}
	}
	return false
}

// globPrefixMatch reports whether a path starting with the directories dir can
// match the pattern segments pat.
func globPrefixMatch(pat, dir []string) bool {
	for i, d := range dir {
		if i >= len(pat) {
			return false
		}
		if pat[i] == "**" {
			return true
		}
		if !doublestar.MatchUnvalidated(pat[i], d) {
			return false
		}
	}
	return len(pat) > len(dir)
}

// globAlternatives returns the brace-free alternatives of a doublestar
// pattern, at most limit of them (else false). Escapes are kept.
func globAlternatives(p string, limit int) ([]string, bool) {
	open := -1
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' {
			i++
		} else if p[i] == '{' {
			open = i
			break
		}
	}
	if open < 0 {
		return []string{p}, true
	}
	depth, start := 0, open+1
	var parts []string
	closeAt := -1
scan:
	for i := open; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				parts = append(parts, p[start:i])
				closeAt = i
				break scan
			}
		case ',':
			if depth == 1 {
				parts = append(parts, p[start:i])
				start = i + 1
			}
		}
	}
	if closeAt < 0 {
		return nil, false
	}
	var out []string
	for _, part := range parts {
		more, ok := globAlternatives(p[:open]+part+p[closeAt+1:], limit-len(out))
		if !ok || len(out)+len(more) > limit {
			return nil, false
		}
		out = append(out, more...)
	}
	return out, true
}

// An OpenFS opens files for reading, as a search needs. A Disk and a
// Router are one.
type OpenFS interface {
	// OpenFile opens the regular file at path for reading. Anything else
	// is an error wrapping [fsruntime.ErrNotRegular].
	OpenFile(ctx context.Context, path string) (io.ReadCloser, fs.FileInfo, error)
}

// A DirOpenFS is an OpenFS that also holds a directory open to open the
// files in it by name, as a Disk and a Router do through the Disk's
// os.Root: Grep's fast path, one openat per file instead of one per path
// component.
type DirOpenFS interface {
	OpenFS
	// OpenDir opens the directory at path, confined as OpenFile is.
	OpenDir(ctx context.Context, path string) (*fsruntime.Dir, error)
}

var (
	_ DirOpenFS = (*fsruntime.Disk)(nil)
	_ DirOpenFS = (*fsruntime.Router)(nil)
)

// GrepOptions configure a [Grep].
type GrepOptions struct {
	// Pattern is an RE2 regular expression (Go's regexp syntax), matched
	// against each line without its terminator.
	Pattern string
	// IgnoreCase matches case-insensitively, as (?i) does.
	IgnoreCase bool
	// Include, if not empty, limits the search to files whose name matches
	// this doublestar pattern, such as "*.go" or "*.{ts,tsx}"; a pattern
	// with a / is matched against the path relative to the root instead.
	// It does not apply to a root that is a file.
	Include string
	// MaxResults caps the matching lines returned: <= 0 means
	// DefaultGrepResults, and it is at most MaxGrepResults.
	MaxResults int
	// MaxFileSize skips larger files; <= 0 means the limit of fsys if it
	// has a MaxFileSize() int64 method (as a Disk has), else
	// fsruntime.DefaultMaxFileSize.
	MaxFileSize int64
	// Workers is how many files are read at once; <= 0 means GOMAXPROCS,
	// and at least 2.
	Workers int
}

// GrepMatch is one matching line.
type GrepMatch struct {
	Path string // absolute
	Line int    // 1-based
	Text string // the line without its terminator, cut at MaxGrepLineLen
	Cut  bool   // the line was longer and Text was cut
}

// GrepResult is what Grep found.
type GrepResult struct {
	// Matches are the matching lines in walk order of their files, then
	// by line, at most the cap.
	Matches []GrepMatch
	// Truncated reports that more lines match than were returned.
	Truncated bool
	// Searched counts the files searched (up to where the search
	// stopped); the Skipped counts, the files left out: binary, over the
	// size limit, or unreadable (vanished, or refused).
	Searched, SkippedBinary, SkippedLarge, SkippedUnreadable int
}

// Grep searches the text files under root (or the file root) for lines
// that match opts.Pattern, several workers reading at once, the results in
// walk order. It skips binary files (a NUL byte or invalid UTF-8 in the
// first 8 KiB), files over the size limit, symlinks, and SkippedDirs that
// Include does not name; a root file it cannot read is an error. fsys is a
// [DirOpenFS] (a Disk or a Router: each directory opened once), an
// [OpenFS], or an [fsruntime.FS] (its ReadTextFile, with its own binary
// rule); any other gives an error wrapping errors.ErrUnsupported.
func Grep(ctx context.Context, fsys fsruntime.WalkFS, root string, opts GrepOptions) (GrepResult, error) {
	m, err := newLineMatcher(opts.Pattern, opts.IgnoreCase)
	if err != nil {
		return GrepResult{}, err
	}
	if opts.Include != "" && !doublestar.ValidatePattern(opts.Include) {
		return GrepResult{}, &PatternError{Kind: "include pattern", Pattern: opts.Include, Err: badGlobReason(opts.Include)}
	}
	openers, err := grepOpeners(fsys)
	if err != nil {
		return GrepResult{}, &fs.PathError{Op: "grep", Path: root, Err: err}
	}
	maxResults := opts.MaxResults
	if maxResults <= 0 {
		maxResults = DefaultGrepResults
	}
	maxResults = min(maxResults, MaxGrepResults)
	limit := opts.MaxFileSize
	if limit <= 0 {
		limit = fsruntime.DefaultMaxFileSize
		if l, ok := fsys.(interface{ MaxFileSize() int64 }); ok && l.MaxFileSize() > 0 {
			limit = l.MaxFileSize()
		}
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = max(runtime.GOMAXPROCS(0), 2)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The walker hands batches of files to the workers and, in the same
	// order, to the collector below, which waits for each batch in turn:
	// the output keeps the walk order however the workers interleave.
	jobs := make(chan *grepBatch, workers*2)
	order := make(chan *grepBatch, workers*8)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := grepWorker{m: m, open: openers(), limit: limit, max: maxResults + 1}
			defer w.open.close()
			for b := range jobs {
				for i := range b.files {
					if ctx.Err() != nil {
						break
					}
					w.do(ctx, &b.files[i])
				}
				close(b.done)
			}
		}()
	}

	var walkErr error
	go func() {
		defer close(order)
		defer close(jobs)
		walkErr = grepWalk(ctx, fsys, root, opts.Include, limit, func(b *grepBatch) bool {
			select {
			case jobs <- b:
			case <-ctx.Done():
				return false
			}
			select {
			case order <- b:
				return true
			case <-ctx.Done():
				return false
			}
		})
	}()

	res := GrepResult{Matches: []GrepMatch{}}
	var rootErr error // root is a file that could not be opened
	for b := range order {
		<-b.done
		for i := range b.files {
			if res.Truncated {
				break // drain
			}
			f := &b.files[i]
			switch f.skip {
			case grepSearched:
				res.Searched++
			case grepBinary:
				res.SkippedBinary++
			case grepLarge:
				res.SkippedLarge++
			case grepUnreadable:
				res.SkippedUnreadable++
				if f.path == root {
					rootErr = f.err
				}
			}
			for _, lm := range f.matches {
				if len(res.Matches) == maxResults {
					res.Truncated = true
					cancel() // stop the walk and the workers
					break
				}
				res.Matches = append(res.Matches, lm)
			}
		}
	}
	wg.Wait()
	switch {
	case res.Truncated:
		return res, nil
	case ctx.Err() != nil:
		return GrepResult{}, &fs.PathError{Op: "grep", Path: root, Err: ctx.Err()}
	case walkErr != nil:
		return GrepResult{}, walkErr
	case rootErr != nil:
		return GrepResult{}, rootErr
	}
	return res, nil
}

// Why a file was not searched.
const (
	grepSearched = iota
	grepBinary
	grepLarge
	grepUnreadable
)

// grepBatchLen is how many files a batch holds at most: enough to make
// the hand-offs between goroutines rare, few enough for a capped search to
// stop soon.
const grepBatchLen = 32

// A grepBatch is files to search, in walk order. The walker makes it; a
// worker searches its files and closes done.
type grepBatch struct {
	files []grepFile
	done  chan struct{}
}

// A grepFile is one file to search, and what came of it.
type grepFile struct {
	path    string
	skip    int   // set by the walker for a file over the size limit
	err     error // why an unreadable file could not be opened
	matches []GrepMatch
}

// grepWalk walks root and hands the files to search to emit, in batches in
// walk order, until emit returns false. It returns the error that ends the
// walk early: one reaching root, or the context's.
func grepWalk(ctx context.Context, fsys fsruntime.WalkFS, root, include string, limit int64, emit func(*grepBatch) bool) error {
	byPath := strings.Contains(include, "/")
	batch := &grepBatch{done: make(chan struct{})}
	add := func(path string, size int64) bool {
		f := grepFile{path: path}
		if size > limit {
			f.skip = grepLarge
		}
		batch.files = append(batch.files, f)
		if len(batch.files) < grepBatchLen {
			return true
		}
		b := batch
		batch = &grepBatch{done: make(chan struct{})}
		return emit(b)
	}
	err := fsys.Walk(ctx, root, func(path string, info fsruntime.FileInfo, err error) error {
		if path == root {
			if err != nil {
				return err
			}
			switch info.Type {
			case fsruntime.TypeDirectory:
				return nil
			case fsruntime.TypeFile:
				add(path, info.Size)
				return nil
			case fsruntime.TypeSymlink:
				return &fs.PathError{Op: "grep", Path: path, Err: errSearchSymlink}
			default:
				return &fs.PathError{Op: "grep", Path: path, Err: fsruntime.RegularMode(info.Mode)}
			}
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			return nil // an unreadable directory below root: skip it
		}
		switch info.Type {
		case fsruntime.TypeDirectory:
			if searchSkips(info.Name, include) {
				return fs.SkipDir
			}
			return nil
		case fsruntime.TypeFile:
		default:
			return nil // symlinks are never followed; devices never read
		}
		if include != "" {
			name := info.Name
			if byPath {
				name, _ = searchRel(root, path)
			}
			if !doublestar.MatchUnvalidated(include, name) {
				return nil
			}
		}
		if !add(path, info.Size) {
			return fs.SkipAll
		}
		return nil
	})
	if errors.Is(err, fs.SkipAll) {
		err = nil
	}
	if err == nil && len(batch.files) > 0 {
		emit(batch)
	}
	return err
}

// A grepOpener opens the files one worker searches, one at a time.
type grepOpener interface {
	open(ctx context.Context, path string) (io.ReadCloser, int64, error)
	close()
}

// grepOpeners returns how Grep's workers read the files of fsys: it makes
// one grepOpener per worker.
func grepOpeners(fsys fsruntime.WalkFS) (func() grepOpener, error) {
	if d, ok := fsys.(DirOpenFS); ok {
		return func() grepOpener { return &dirOpener{fsys: d} }, nil
	}
	if o, ok := fsys.(OpenFS); ok {
		return func() grepOpener { return openFSOpener{o} }, nil
	}
	if f, ok := fsys.(fsruntime.FS); ok {
		return func() grepOpener { return textOpener{f} }, nil
	}
	return nil, fmt.Errorf("searching file contents is not supported here: %w", errors.ErrUnsupported)
}

type openFSOpener struct{ o OpenFS }

func (o openFSOpener) open(ctx context.Context, path string) (io.ReadCloser, int64, error) {
	rc, info, err := o.o.OpenFile(ctx, path)
	if err != nil {
		return nil, 0, err
	}
	return rc, info.Size(), nil
}

func (openFSOpener) close() {}

// textOpener reads through FS.ReadTextFile, which applies the FS's own
// binary and size rules.
type textOpener struct{ f fsruntime.FS }

func (o textOpener) open(ctx context.Context, path string) (io.ReadCloser, int64, error) {
	text, err := o.f.ReadTextFile(ctx, path, 0, 0)
	if err != nil {
		return nil, 0, err
	}
	return io.NopCloser(strings.NewReader(text)), int64(len(text)), nil
}

func (textOpener) close() {}

// dirOpener opens the files of a DirOpenFS through the directory they
// are in, kept open while the files come from the same directory (as they
// do in walk order).
type dirOpener struct {
	fsys DirOpenFS
	dir  string         // the directory of held or err; "" for none
	held *fsruntime.Dir // nil when opening dir failed
	err  error
}

func (o *dirOpener) open(ctx context.Context, path string) (io.ReadCloser, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	dir, name := filepath.Dir(path), filepath.Base(path)
	if dir != o.dir {
		o.close()
		o.dir = dir
		o.held, o.err = o.fsys.OpenDir(ctx, dir)
	}
	if o.err != nil {
		return nil, 0, o.err
	}
	rc, info, err := o.held.OpenFile(ctx, name)
	if err != nil {
		return nil, 0, err
	}
	return rc, info.Size(), nil
}

func (o *dirOpener) close() {
	if o.held != nil {
		o.held.Close()
	}
	o.dir, o.held, o.err = "", nil, nil
}

// A grepWorker searches files, one at a time, reusing its buffer.
type grepWorker struct {
	m     *lineMatcher
	open  grepOpener
	limit int64 // the size limit
	max   int   // the most matches a file needs to return
	buf   []byte
}

func (w *grepWorker) do(ctx context.Context, f *grepFile) {
	if f.skip != grepSearched {
		return
	}
	rc, size, err := w.open.open(ctx, f.path)
	switch {
	case errors.Is(err, fsruntime.ErrBinary):
		f.skip = grepBinary
		return
	case errors.Is(err, fsruntime.ErrTooLarge):
		f.skip = grepLarge
		return
	case err != nil:
		f.skip, f.err = grepUnreadable, err
		return
	}
	defer rc.Close()
	if size > w.limit {
		f.skip = grepLarge
		return
	}
	data, skip := w.read(ctx, rc, size)
	if skip != grepSearched {
		f.skip = skip
		return
	}
	f.matches = w.m.find(data, f.path, w.max)
}

// read reads a whole file into the worker's buffer, stopping as soon as it
// is known to be binary or over the size limit.
func (w *grepWorker) read(ctx context.Context, r io.Reader, size int64) ([]byte, int) {
	want := int(min(max(size, 0), w.limit)) + 1 // +1 to see EOF, or growth
	if cap(w.buf) < want {
		w.buf = make([]byte, max(want, 64<<10))
	}
	buf := w.buf[:cap(w.buf)]
	n := 0
	sniffed := false
	for {
		if n == len(buf) {
			// The file grew since it was opened, or its size is not
			// known: n <= limit here.
			nb := make([]byte, min(2*int64(len(buf)), w.limit+1))
			copy(nb, buf[:n])
			buf, w.buf = nb, nb
		}
		if ctx.Err() != nil {
			return nil, grepUnreadable
		}
		k, err := r.Read(buf[n:])
		n += k
		if int64(n) > w.limit {
			return nil, grepLarge
		}
		// A file is read as it was when opened: once it has the size it
		// had then, it is whole (saving a read to see EOF).
		eof := err == io.EOF || err == nil && size > 0 && int64(n) == size
		if err != nil && !eof {
			return nil, grepUnreadable
		}
		if !sniffed && (n >= fsruntime.SniffLen || eof) {
			sniffed = true
			if grepBinaryHead(buf[:n], !eof) {
				return nil, grepBinary
			}
		}
		if eof {
			return buf[:n], grepSearched
		}
	}
}

// isBinary applies the rule of reads to the start of a file: a NUL byte or
// invalid UTF-8 in the first fsruntime.SniffLen bytes. more says that the file goes
// on past data, so a character cut by the window is not held against it.
func grepBinaryHead(data []byte, more bool) bool {
	head := data[:min(len(data), fsruntime.SniffLen)]
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	if more || len(data) > len(head) {
		for i := 1; i < utf8.UTFMax && i <= len(head); i++ {
			if utf8.RuneStart(head[len(head)-i]) {
				if !utf8.FullRune(head[len(head)-i:]) {
					head = head[:len(head)-i]
				}
				break
			}
		}
	}
	return !utf8.Valid(head)
}

// A matcher finds the lines of a file that match a regular expression. It
// runs the regular expression only on lines that contain a literal every
// match must contain, found with a fast byte search, when there is one.
type lineMatcher struct {
	re *regexp.Regexp
	// lit is a literal that every match contains, or nil; fold says it is
	// ASCII and matched without regard to case (then lit is lower case).
	lit  []byte
	fold bool
	// anchor is the index in lit of the byte a folded search looks for.
	anchor int
	// exact says a line matches if and only if it contains lit, so the
	// regular expression need not run.
	exact bool
	// foldKS says a folded lit contains k or s, which (?i) also matches
	// as U+212A KELVIN SIGN and U+017F LATIN SMALL LETTER LONG S: a file
	// holding either is searched line by line with the regexp.
	foldKS bool
}

func newLineMatcher(pattern string, ignoreCase bool) (*lineMatcher, error) {
	if pattern == "" {
		return nil, &PatternError{Kind: "regular expression", Pattern: pattern, Err: errors.New("the pattern is empty")}
	}
	expr := pattern
	if ignoreCase {
		expr = "(?i)" + pattern
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		if se, ok := errors.AsType[*syntax.Error](err); ok {
			// Without "error parsing regexp: ", which the message
			// already says.
			err = fmt.Errorf("%v: `%s`", se.Code, se.Expr)
		}
		return nil, &PatternError{Kind: "regular expression", Pattern: pattern, Err: err}
	}
	m := &lineMatcher{re: re}
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return m, nil
	}
	exact := true
	for tree.Op == syntax.OpCapture {
		tree = tree.Sub[0]
	}
	if tree.Op != syntax.OpLiteral {
		exact = false
	}
	runes, fold, ok := requiredLiteral(tree)
	if !ok {
		return m, nil
	}
	if slices.Contains(runes, utf8.RuneError) {
		// The regexp reads each invalid byte as U+FFFD; a byte search
		// would not.
		return m, nil
	}
	lit := []byte(string(runes))
	if fold {
		for _, c := range lit {
			if c >= utf8.RuneSelf {
				return m, nil // a folded non-ASCII literal: no byte search
			}
		}
		lit = bytes.ToLower(lit)
		m.anchor = 0
		for i, c := range lit {
			if c < 'a' || c > 'z' {
				m.anchor = i // one byte value to look for, not two
				break
			}
		}
		m.foldKS = bytes.ContainsAny(lit, "ks")
	}
	m.lit, m.fold = lit, fold
	// A literal with a line terminator in it is found across lines by the
	// byte search: then the regexp must decide.
	m.exact = exact && !bytes.ContainsAny(lit, "\r\n")
	return m, nil
}

// requiredLiteral returns a literal that every match of re contains: the
// longest one found, preferring one that is case-sensitive.
func requiredLiteral(re *syntax.Regexp) (lit []rune, fold, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return re.Rune, re.Flags&syntax.FoldCase != 0, len(re.Rune) > 0
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			l, f, k := requiredLiteral(sub)
			if !k {
				continue
			}
			if !ok || betterLiteral(l, f, lit, fold) {
				lit, fold, ok = l, f, true
			}
		}
		return lit, fold, ok
	}
	return nil, false, false
}

// better reports whether literal a is a better one to search for than b.
func betterLiteral(a []rune, aFold bool, b []rune, bFold bool) bool {
	if aFold != bFold {
		return !aFold
	}
	return len(a) > len(b)
}

var (
	grepKelvin = []byte("\u212A")
	grepLongS  = []byte("\u017F")
	grepCR     = []byte{'\r'}
	grepLF     = []byte{'\n'}
)

// find returns the matching lines of data, at most max.
func (m *lineMatcher) find(data []byte, path string, max int) []GrepMatch {
	var out []GrepMatch
	add := func(lineNo int, line []byte) bool {
		out = append(out, newGrepMatch(path, lineNo, line))
		return len(out) < max
	}
	if m.lit == nil || m.fold && m.foldKS && (bytes.Contains(data, grepKelvin) || bytes.Contains(data, grepLongS)) {
		m.eachLine(data, add)
		return out
	}
	pos, lineNo, counted := 0, 1, 0
	for pos < len(data) {
		i := m.index(data[pos:])
		if i < 0 {
			break
		}
		i += pos
		start := bytes.LastIndexByte(data[pos:i], '\n') + 1 + pos
		end := bytes.IndexByte(data[i:], '\n')
		next := len(data)
		if end < 0 {
			end = len(data)
		} else {
			end += i
			next = end + 1
		}
		line := bytes.TrimSuffix(data[start:end], grepCR)
		lineNo += bytes.Count(data[counted:start], grepLF)
		counted = start
		if m.exact || m.re.Match(line) {
			if !add(lineNo, line) {
				break
			}
		}
		pos = next
	}
	return out
}

// eachLine runs the regexp on every line.
func (m *lineMatcher) eachLine(data []byte, add func(int, []byte) bool) {
	for lineNo := 1; len(data) > 0; lineNo++ {
		end := bytes.IndexByte(data, '\n')
		var line []byte
		if end < 0 {
			line, data = data, nil
		} else {
			line, data = data[:end], data[end+1:]
		}
		line = bytes.TrimSuffix(line, grepCR)
		if m.re.Match(line) && !add(lineNo, line) {
			return
		}
	}
}

// index returns the index of the first occurrence of the literal in data,
// or -1.
func (m *lineMatcher) index(data []byte) int {
	if !m.fold {
		return bytes.Index(data, m.lit)
	}
	return foldIndexASCII(data, m.lit, m.anchor)
}

// indexFold returns the index of the first ASCII case-insensitive
// occurrence of lit (lower case) in data, or -1. It looks for the byte
// lit[anchor] in its two cases, each with bytes.IndexByte, remembering
// the next of each.
func foldIndexASCII(data, lit []byte, anchor int) int {
	c := lit[anchor]
	upper := c
	if 'a' <= c && c <= 'z' {
		upper = c - 'a' + 'A'
	}
	nextLo, nextUp := -2, -2 // -2: not looked for yet; -1: none left
	if upper == c {
		nextUp = -1
	}
	from := anchor
	for from < len(data) && len(data)-from+anchor >= len(lit) {
		if nextLo != -1 && nextLo < from {
			if k := bytes.IndexByte(data[from:], c); k >= 0 {
				nextLo = from + k
			} else {
				nextLo = -1
			}
		}
		if nextUp != -1 && nextUp < from {
			if k := bytes.IndexByte(data[from:], upper); k >= 0 {
				nextUp = from + k
			} else {
				nextUp = -1
			}
		}
		at := nextLo
		if at == -1 || nextUp != -1 && nextUp < at {
			at = nextUp
		}
		if at == -1 {
			return -1
		}
		s := at - anchor
		if s+len(lit) <= len(data) && foldEqualASCII(data[s:s+len(lit)], lit) {
			return s
		}
		from = at + 1
	}
	return -1
}

// equalFoldASCII reports whether a equals lit (lower case) ignoring ASCII
// case.
func foldEqualASCII(a, lit []byte) bool {
	for i, c := range a {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lit[i] {
			return false
		}
	}
	return true
}

// match makes the GrepMatch of a line, cut to MaxGrepLineLen and made
// valid UTF-8.
func newGrepMatch(path string, lineNo int, line []byte) GrepMatch {
	lm := GrepMatch{Path: path, Line: lineNo}
	if len(line) > MaxGrepLineLen {
		cut := MaxGrepLineLen
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line, lm.Cut = line[:cut], true
	}
	lm.Text = string(line)
	if !utf8.ValidString(lm.Text) {
		lm.Text = strings.ToValidUTF8(lm.Text, "\uFFFD")
	}
	if lm.Cut {
		lm.Text += GrepLineCut
	}
	return lm
}
