package mcpfs

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/aymanbagabas/go-udiff"
	"github.com/gabriel-vasile/mimetype"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
	"github.com/mcp-acpfs/mcp-acpfs/internal/lift"
)

// Tool names.
const (
	EditTextFile  = "edit_text_file"
	ReadMediaFile = "read_media_file"
)

// addEditTools registers edit_text_file (unless the session is read-only)
// and read_media_file.
func (b *binding) addEditTools() {
	if !b.sess.ReadOnly {
		b.srv.AddTool(b.editTool(), b.editTextFile)
	}
	b.srv.AddTool(b.mediaTool(), b.readMediaFile)
}

// errChanged matches every "changed since read" error: what the
// expectedHash check of writes and edits reports (DESIGN.md, "Conflict
// detection", says what it guards against and what it cannot).
var errChanged = errors.New("changed since read")

// changedError reports a file whose hash is not the expectedHash a call
// gave. It matches errChanged, and fs.ErrNotExist when the file is gone.
type changedError struct {
	expected string // as given
	actual   string // the file's hash now; "" when it does not exist
}

func (e *changedError) Error() string {
	if e.actual == "" {
		return fmt.Sprintf("changed since read: the file does not exist (expectedHash %s); nothing was written", e.expected)
	}
	return fmt.Sprintf("changed since read: its sha256 is now %s, not the expectedHash %s; nothing was written", e.actual, e.expected)
}

func (e *changedError) Unwrap() []error {
	if e.actual == "" {
		return []error{errChanged, fs.ErrNotExist}
	}
	return []error{errChanged}
}

// hashFile returns the hash of the whole file at path as fsys's read route
// sees it: fsruntime.HashFS when fsys has it, a whole read otherwise.
func hashFile(ctx context.Context, fsys fsruntime.FS, path string) (string, error) {
	if h, ok := fsys.(fsruntime.HashFS); ok {
		return h.HashTextFile(ctx, path)
	}
	text, err := fsys.ReadTextFile(ctx, path, 0, 0)
	if err != nil {
		return "", err
	}
	return fsruntime.HashText(text), nil
}

// checkExpectedHash parses an expectedHash argument: "" (none) or 64 hex
// digits, returned in lower case.
func checkExpectedHash(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	if len(s) != sha256.Size*2 {
		return "", fmt.Errorf("expectedHash must be the 64 hex digits of a SHA-256, as read_text_file returns it in sha256, not %d characters", len(s))
	}
	if _, err := hex.DecodeString(s); err != nil {
		return "", fmt.Errorf("expectedHash must be the 64 hex digits of a SHA-256, as read_text_file returns it in sha256: %q is not hex", s)
	}
	return strings.ToLower(s), nil
}

// verifyHash checks that the file at path still hashes to expected, for a
// write. A file that is gone is a change too.
func verifyHash(ctx context.Context, fsys fsruntime.FS, path, expected string) error {
	actual, err := hashFile(ctx, fsys, path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &fs.PathError{Op: "write", Path: path, Err: &changedError{expected: expected}}
	case err != nil:
		return &fs.PathError{Op: "write", Path: path, Err: fmt.Errorf("checking expectedHash: %w", unwrapPath(err))}
	case actual != expected:
		return &fs.PathError{Op: "write", Path: path, Err: &changedError{expected: expected, actual: actual}}
	}
	return nil
}

// unwrapPath returns the cause of a *fs.PathError, or err.
func unwrapPath(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}

// pathLocks serialises the writes and edits of this process by path (see
// "Conflict detection" above). It is per process on purpose: every session
// has a server of its own, sessions may share files, and two servers must
// not interleave one's check of expectedHash with the other's write.
var pathLocks = &keyedMutex{locks: make(map[string]*keyedLock)}

type keyedMutex struct {
	mu    sync.Mutex
	locks map[string]*keyedLock // guarded by mu
}

type keyedLock struct {
	ch   chan struct{} // holds a token while locked
	refs int           // holders and waiters; guarded by keyedMutex.mu
}

// lock locks key, waiting while ctx allows, and returns the unlock func.
func (m *keyedMutex) lock(ctx context.Context, key string) (func(), error) {
	m.mu.Lock()
	l := m.locks[key]
	if l == nil {
		l = &keyedLock{ch: make(chan struct{}, 1)}
		m.locks[key] = l
	}
	l.refs++
	m.mu.Unlock()
	release := func() {
		m.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(m.locks, key)
		}
		m.mu.Unlock()
	}
	select {
	case l.ch <- struct{}{}:
		return func() { <-l.ch; release() }, nil
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
}

// lockPaths locks several keys in sorted order, so that two callers that
// lock overlapping sets cannot deadlock, and returns one unlock func.
func (m *keyedMutex) lockPaths(ctx context.Context, keys ...string) (func(), error) {
	keys = slices.Compact(slices.Sorted(slices.Values(keys)))
	var unlocks []func()
	unlockAll := func() {
		for _, u := range slices.Backward(unlocks) {
			u()
		}
	}
	for _, k := range keys {
		u, err := m.lock(ctx, k)
		if err != nil {
			unlockAll()
			return nil, err
		}
		unlocks = append(unlocks, u)
	}
	return unlockAll, nil
}

// edit_text_file

// editArgs are edit_text_file's arguments.
type editArgs struct {
	Path         string    `json:"path"`
	Edits        []editArg `json:"edits"`
	DryRun       bool      `json:"dryRun"`
	ExpectedHash string    `json:"expectedHash"`
}

type editArg struct {
	OldText    string `json:"oldText"`
	NewText    string `json:"newText"`
	ReplaceAll bool   `json:"replaceAll"`
}

// editOutput is edit_text_file's structured result.
type editOutput struct {
	Path          string `json:"path" jsonschema:"The absolute path of the file."`
	Diff          string `json:"diff" jsonschema:"A unified diff of the change, empty when the edits change nothing."`
	DiffTruncated bool   `json:"diffTruncated" jsonschema:"The diff was cut short at the size limit of a diff; read the file to see the result."`
	AppliedEdits  int    `json:"appliedEdits" jsonschema:"How many edits were applied (all of them: an edit that fails fails the call)."`
	Replacements  int    `json:"replacements" jsonschema:"How many occurrences were replaced in all, counting every one a replaceAll edit replaced."`
	SHA256Before  string `json:"sha256Before" jsonschema:"The hex SHA-256 of the file before the edits."`
	SHA256After   string `json:"sha256After" jsonschema:"The hex SHA-256 of the file after the edits (for a dry run, what it would be): pass it as expectedHash to a later edit or write."`
	DryRun        bool   `json:"dryRun" jsonschema:"This was a dry run: nothing was written."`
	Written       bool   `json:"written" jsonschema:"The file was written: false for a dry run and for edits that leave the text as it was."`
}

// maxDiff bounds the diff an edit returns, in bytes, to spare the model's
// context: a replaceAll over a large file can change every line.
const maxDiff = 64 << 10

func (b *binding) editTool() mcp.Tool {
	desc := "Change part of a text file by exact replacement, in the editor's buffer where it serves files. " +
		"Edits apply in order; each oldText must match once, whitespace included, unless replaceAll. " +
		"Line endings and a BOM are kept; line numbers from a numbered read are ignored. " +
		"If an edit fails, nothing is written. Returns a diff; dryRun writes nothing." +
		b.sizeNote(" Limit: %s.") + b.guardNote()
	return mcp.NewTool(EditTextFile,
		mcp.WithToolTitle("Edit text file"),
		mcp.WithDescription(desc),
		mcp.WithString("path", mcp.Required(), mcp.Description(pathArg)),
		mcp.WithArray("edits", mcp.Required(), mcp.MinItems(1),
			mcp.Description("Replacements, in order"),
			mcp.Items(map[string]any{
				"type": "object",
				"properties": map[string]any{
					"oldText":    map[string]any{"type": "string", "description": "Exact text to replace"},
					"newText":    map[string]any{"type": "string", "description": "Its replacement"},
					"replaceAll": map[string]any{"type": "boolean", "description": "Replace every match"},
				},
				"required":             []string{"oldText", "newText"},
				"additionalProperties": false,
			})),
		mcp.WithBoolean("dryRun", mcp.Description("Only return the diff")),
		mcp.WithString("expectedHash", mcp.Description("Edit only if the file's sha256 is still this")),
		mcp.WithOutputSchema[editOutput](),
		hints("Edit text file", false, true, false),
	)
}

func (b *binding) editTextFile(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args editArgs
	if err := req.BindArguments(&args); err != nil {
		return errorResult("edit", "", fmt.Errorf("invalid arguments: %w", err)), nil
	}
	for i := range args.Edits {
		if err := errors.Join(lift.Unlift(ctx, &args.Edits[i].OldText), lift.Unlift(ctx, &args.Edits[i].NewText)); err != nil {
			return errorResult("edit", "", fmt.Errorf("invalid arguments: %w", err)), nil
		}
	}
	p, err := fspath.AbsFile(b.sess.WorkDir, b.expand(args.Path))
	if err != nil {
		return errorResult("edit", args.Path, err), nil
	}
	if err := checkEdits(args.Edits); err != nil {
		return errorResult("edit", p, err), nil
	}
	expected, err := checkExpectedHash(args.ExpectedHash)
	if err != nil {
		return errorResult("edit", p, err), nil
	}
	fsys, done := b.acquire(ctx)
	defer done()
	if !args.DryRun {
		unlock, err := pathLocks.lock(ctx, p)
		if err != nil {
			return errorResult("edit", p, err), nil
		}
		defer unlock()
	}

	before, err := fsys.ReadTextFile(ctx, p, 0, 0)
	if err != nil {
		return errorResult("edit", p, editCause(err)), nil
	}
	var sumBefore string
	if expected == "" && !args.DryRun {
		if sumBefore, err = b.checkEdit(ctx, fsys, p, before); err != nil { // the read guard: ledger.go
			return errorResult("edit", p, err), nil
		}
	}
	after, replacements, err := applyEdits(before, args.Edits)
	if err != nil {
		// A file changed since it was read is the better answer.
		if expected != "" {
			if sum := fsruntime.HashText(before); sum != expected {
				return errorResult("edit", p, &changedError{expected: expected, actual: sum}), nil
			}
		}
		return errorResult("edit", p, err), nil
	}
	// The hash of the text before is checked before anything is written;
	// the other hashes and the diff are made while the file is written.
	if expected != "" {
		if sumBefore = fsruntime.HashText(before); sumBefore != expected {
			return errorResult("edit", p, &changedError{expected: expected, actual: sumBefore}), nil
		}
	}
	report := inBackground(len(before)+len(after), func() editOutput {
		var o editOutput
		if sumBefore != "" {
			o.SHA256Before, o.SHA256After = sumBefore, fsruntime.HashText(after)
		} else {
			o.SHA256Before, o.SHA256After = fsruntime.HashTextPair(before, after)
		}
		o.Diff, o.DiffTruncated = unifiedDiff(p, before, after)
		return o
	})
	var written bool
	if after != before && !args.DryRun {
		err = fsys.WriteTextFile(ctx, p, after)
		written = err == nil
	}
	out := report() // awaited on failure too
	out.Path, out.DryRun, out.Written = p, args.DryRun, written
	out.AppliedEdits, out.Replacements = len(args.Edits), replacements
	if err != nil {
		return errorResult("edit", p, editCause(err)), nil
	}
	if !args.DryRun {
		b.recordSeen(ctx, p, out.SHA256After)
	}
	return mcp.NewToolResultStructured(out, editSummary(out)), nil
}

// asyncHashMin is the size of text from which a tool hashes it (and an
// edit makes its diff) on another goroutine, while it writes: below it,
// the goroutine costs more than it saves.
const asyncHashMin = 32 << 10

// inBackground returns a function that returns f's result: computed on
// another goroutine, starting now, if size is asyncHashMin or more, and
// otherwise at once. The function may be called any number of times;
// each call waits for the result. A caller calls it at least once before
// it returns, so that no goroutine outlives the call.
func inBackground[T any](size int, f func() T) func() T {
	if size < asyncHashMin {
		v := f()
		return func() T { return v }
	}
	done := make(chan struct{})
	var v T
	go func() {
		defer close(done)
		v = f()
	}()
	return func() T {
		<-done
		return v
	}
}

// editCause is the cause of a read or write failure of an edit, for
// errorResult under the op "edit".
func editCause(err error) error {
	err = unwrapPath(err)
	if tl, ok := errors.AsType[*fsruntime.TooLargeError](err); ok && tl.Read {
		// Its message advises a line range, which an edit cannot use.
		return &fsruntime.TooLargeError{Size: tl.Size, Limit: tl.Limit}
	}
	return err
}

// editSummary is the text result of an edit: what happened, the hashes,
// and the diff.
func editSummary(out editOutput) string {
	n := plural(out.AppliedEdits, "edit")
	if out.Replacements != out.AppliedEdits {
		n += " (" + plural(out.Replacements, "replacement") + ")"
	}
	var s string
	switch {
	case out.Diff == "":
		s = fmt.Sprintf("The %s leave %s as it was; nothing was written.", n, out.Path)
	case out.DryRun:
		s = fmt.Sprintf("Dry run: %s would change %s; nothing was written.", n, out.Path)
	default:
		s = fmt.Sprintf("Applied %s to %s.", n, out.Path)
	}
	if out.Diff == "" {
		return s
	}
	if out.DiffTruncated {
		s += " The diff is cut short; read the file to see the rest."
	}
	return s + "\n\n" + out.Diff
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// checkEdits refuses what no file could satisfy, before anything is read.
func checkEdits(edits []editArg) error {
	if len(edits) == 0 {
		return errors.New("no edits given: edits needs at least one {oldText, newText}")
	}
	for i, e := range edits {
		if e.OldText == "" || e.OldText == bom {
			return fmt.Errorf("edit %d of %d: oldText is empty; give the exact text to replace (to write a whole file, use write_text_file)", i+1, len(edits))
		}
	}
	return nil
}

// editError reports an edit whose oldText does not match exactly once.
type editError struct {
	index, total int // 1-based
	matches      int
	earlier      bool // no match now, but the text before the edits had one
}

func (e *editError) Error() string {
	at := fmt.Sprintf("edit %d of %d", e.index, e.total)
	switch {
	case e.matches == 0 && e.earlier:
		return at + ": oldText was not found: an earlier edit of this call changed or removed it; nothing was written"
	case e.matches == 0:
		return at + ": oldText was not found; it must match the file's current text exactly, whitespace and indentation included " +
			"(read the file again to see it); nothing was written"
	default:
		return fmt.Sprintf("%s: oldText matches %d times; add surrounding lines to make it unique, or set replaceAll to replace them all; nothing was written",
			at, e.matches)
	}
}

const bom = "\uFEFF"

// applyEdits applies edits in order to text and returns the result and
// the number of replacements made. A byte order mark is set aside and put
// back; the edits' line endings are made the text's dominant ones.
func applyEdits(text string, edits []editArg) (string, int, error) {
	body, hasBOM := strings.CutPrefix(text, bom)
	crlf := dominantCRLF(body)
	cur := body
	total := 0
	for i, e := range edits {
		oldText, newText := e.OldText, e.NewText
		if hasBOM {
			// A model may copy the mark from a read of the file's start.
			if o, ok := strings.CutPrefix(oldText, bom); ok {
				oldText = o
				newText = strings.TrimPrefix(newText, bom)
			}
		}
		// Match with the text's line endings; failing that, as given
		// (a file that mixes them).
		oldNorm, newNorm := withEndings(oldText, crlf), withEndings(newText, crlf)
		at, n := matches(cur, oldNorm, 2)
		if n == 0 && oldNorm != oldText {
			if a, m := matches(cur, oldText, 2); m > 0 {
				oldNorm, newNorm, at, n = oldText, newText, a, m
			}
		}
		if n == 0 {
			// Lines copied from a numbered read: without their numbers
			// (and newText's, if it has them too).
			if o, ok := stripNumbers(oldText); ok {
				nt, _ := stripNumbers(newText)
				if a, m := matches(cur, withEndings(o, crlf), 2); m > 0 {
					oldNorm, newNorm, at, n = withEndings(o, crlf), withEndings(nt, crlf), a, m
				}
			}
		}
		switch {
		case n == 0:
			earlier := i > 0 && (strings.Contains(body, oldNorm) || strings.Contains(body, oldText))
			return "", 0, &editError{index: i + 1, total: len(edits), earlier: earlier}
		case n > 1 && !e.ReplaceAll:
			_, all := matches(cur, oldNorm, -1)
			return "", 0, &editError{index: i + 1, total: len(edits), matches: all}
		case e.ReplaceAll:
			total += strings.Count(cur, oldNorm)
			cur = strings.ReplaceAll(cur, oldNorm, newNorm)
		default:
			cur = cur[:at] + newNorm + cur[at+len(oldNorm):]
			total++
		}
	}
	if hasBOM {
		cur = bom + cur
	}
	return cur, total, nil
}

// dominantCRLF reports whether more lines of s end in \r\n than in a bare
// \n.
func dominantCRLF(s string) bool {
	crlf := strings.Count(s, "\r\n")
	return crlf > strings.Count(s, "\n")-crlf
}

// withEndings returns s with its line endings made \r\n (crlf) or \n.
func withEndings(s string, crlf bool) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	lf := strings.ReplaceAll(s, "\r\n", "\n")
	if !crlf {
		return lf
	}
	return strings.ReplaceAll(lf, "\n", "\r\n")
}

// matches returns the offset of the first occurrence of sub in s and the
// number of occurrences, overlapping ones included (a match is ambiguous if
// sub occurs at two offsets), counting up to max (max < 0 means no limit).
func matches(s, sub string, max int) (first, n int) {
	first = -1
	for off := 0; max < 0 || n < max; n++ {
		i := strings.Index(s[off:], sub)
		if i < 0 {
			break
		}
		if n == 0 {
			first = off + i
		}
		off += i + 1
	}
	return first, n
}

// unifiedDiff returns a unified diff from before to after, labelled with
// path, cut at maxDiff bytes (at a line end), and whether it was cut; a
// byte order mark is left out. It does what udiff.Unified does, on less:
// the lines common to the start and end of both texts are set aside before
// the line diff, which is rendered from a window around the change with
// its line numbers shifted back, so an edit costs time in the size of the
// region it changed, not of the file.
func unifiedDiff(path, before, after string) (string, bool) {
	if before == after {
		return "", false
	}
	if strings.HasPrefix(before, bom) && strings.HasPrefix(after, bom) {
		before, after = before[len(bom):], after[len(bom):]
	}
	// The common prefix, back to the start of its last line; the common
	// suffix after it, forward to the start of a line of before.
	p := commonPrefix(before, after)
	p = strings.LastIndexByte(before[:p], '\n') + 1
	s := commonSuffix(before[p:], after[p:])
	if bs := len(before) - s; s > 0 && bs > 0 && before[bs-1] != '\n' {
		if nl := strings.IndexByte(before[bs:], '\n'); nl >= 0 {
			s -= nl + 1
		} else {
			s = 0
		}
	}
	bEnd, aEnd := len(before)-s, len(after)-s
	edits := udiff.Lines(before[p:bEnd], after[p:aEnd])

	// The window: the changed lines and the context lines around them.
	const context = udiff.DefaultContextLines
	ws, we := p, bEnd
	for range context {
		if ws > 0 {
			ws = strings.LastIndexByte(before[:ws-1], '\n') + 1
		}
		if nl := strings.IndexByte(before[we:], '\n'); nl >= 0 {
			we += nl + 1
		} else {
			we = len(before)
		}
	}
	for i := range edits {
		edits[i].Start += p - ws
		edits[i].End += p - ws
	}
	var diff string
	if u, err := udiff.ToUnifiedDiff(path, path, before[ws:we], edits, context); err == nil {
		skipped := strings.Count(before[:ws], "\n")
		for _, h := range u.Hunks {
			h.FromLine += skipped
			h.ToLine += skipped
		}
		diff = u.String()
	} else {
		// Cannot happen: the edits come from a diff of the window. Fall
		// back to a diff of the whole text.
		diff = udiff.Unified(path, path, before, after)
	}
	if len(diff) <= maxDiff {
		return diff, false
	}
	cut := strings.LastIndexByte(diff[:maxDiff], '\n') + 1
	return diff[:cut], true
}

// commonPrefix returns the length of the longest common prefix of a and b,
// comparing blocks at a time.
func commonPrefix(a, b string) int {
	const block = 512
	n, i := min(len(a), len(b)), 0
	for i+block <= n && a[i:i+block] == b[i:i+block] {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix returns the length of the longest common suffix of a and b.
func commonSuffix(a, b string) int {
	const block = 512
	n, i := min(len(a), len(b)), 0
	for i+block <= n && a[len(a)-i-block:len(a)-i] == b[len(b)-i-block:len(b)-i] {
		i += block
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}

// read_media_file

// mediaArgs are read_media_file's arguments.
type mediaArgs struct {
	Path string `json:"path"`
}

// mediaOutput is read_media_file's structured result.
type mediaOutput struct {
	Path     string `json:"path" jsonschema:"The absolute path of the file."`
	MIMEType string `json:"mimeType" jsonschema:"The MIME type detected from the content."`
	Size     int    `json:"size" jsonschema:"The size of the file in bytes."`
}

// mediaCap is the most read_media_file returns: the session's size limit,
// or the runtime's default limit when the session names none.
func (b *binding) mediaCap() int64 {
	if b.sess.MaxFileSize > 0 {
		return b.sess.MaxFileSize
	}
	return fsruntime.DefaultMaxFileSize
}

func (b *binding) mediaTool() mcp.Tool {
	desc := "Read an image, a sound or another binary file from disk: images and audio return as such, " +
		"anything else as a base64 resource. " + fmt.Sprintf("Limit: %s.", fsruntime.FormatSize(b.mediaCap()))
	return mcp.NewTool(ReadMediaFile,
		mcp.WithToolTitle("Read media file"),
		mcp.WithDescription(desc),
		mcp.WithString("path", mcp.Required(), mcp.Description(pathArg)),
		mcp.WithOutputSchema[mediaOutput](),
		hints("Read media file", true, false, true),
	)
}

func (b *binding) readMediaFile(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args mediaArgs
	if err := req.BindArguments(&args); err != nil {
		return errorResult("read media", "", fmt.Errorf("invalid arguments: %w", err)), nil
	}
	p, err := fspath.AbsFile(b.sess.WorkDir, b.expand(args.Path))
	if err != nil {
		return errorResult("read media", args.Path, err), nil
	}
	fsys, done := b.acquire(ctx)
	defer done()
	bfs, ok := fsys.(fsruntime.BinaryFS)
	if !ok {
		return errorResult("read media", p, fmt.Errorf("binary reads: %w", errors.ErrUnsupported)), nil
	}
	data, err := bfs.ReadFile(ctx, p, b.mediaCap())
	if err != nil {
		err = unwrapPath(err)
		if tl, ok := errors.AsType[*fsruntime.TooLargeError](err); ok {
			err = &fsruntime.TooLargeError{Size: tl.Size, Limit: tl.Limit} // no line-range advice
		}
		return errorResult("read media", p, err), nil
	}
	mime := mimetype.Detect(data).String()
	out := mediaOutput{Path: p, MIMEType: mime, Size: len(data)}
	b64 := base64.StdEncoding.EncodeToString(data)
	var media mcp.Content
	switch {
	case strings.HasPrefix(mime, "image/"):
		media = mcp.NewImageContent(b64, mime)
	case strings.HasPrefix(mime, "audio/"):
		media = mcp.NewAudioContent(b64, mime)
	default:
		media = mcp.NewEmbeddedResource(mcp.BlobResourceContents{URI: fspath.FileURI(p), MIMEType: mime, Blob: b64})
	}
	return &mcp.CallToolResult{
		Content: []mcp.Content{
			mcp.NewTextContent(fmt.Sprintf("%s: %s, %s", p, mime, fsruntime.FormatSize(int64(len(data))))),
			media,
		},
		StructuredContent: out,
	}, nil
}
