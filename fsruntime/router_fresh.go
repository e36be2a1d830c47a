package fsruntime

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"time"
)

// Defaults of [ReloadOptions].
const (
	DefaultReloadWindow = 2 * time.Second
	DefaultReloadBound  = 500 * time.Millisecond
)

// The waits between asks: the first, doubled after each ask up to the
// longest.
const (
	reloadFirstWait = 10 * time.Millisecond
	reloadMaxWait   = 100 * time.Millisecond
)

// ReloadOptions tune how a read through the editor waits for the editor to
// reload a file that changed on disk. The Router compares each read through
// the editor with the file on disk; when they differ and the file was
// modified within Window, it asks the editor again, with short waits, until
// the two agree or Bound has passed. See DESIGN.md, "Stale buffers".
type ReloadOptions struct {
	// Window is how recently the file must have been modified on disk
	// (its modification time against Now) for a differing text to be
	// taken for a pending reload and asked again. Zero means
	// DefaultReloadWindow; negative means never to ask again.
	Window time.Duration
	// Bound limits the asks again and the waits between them, in all.
	// Zero means DefaultReloadBound; negative means never to ask again.
	Bound time.Duration
	// Now tells the time that modification times are compared with; nil
	// means time.Now. The waits themselves use timers.
	Now func() time.Time
}

func (o ReloadOptions) withDefaults() ReloadOptions {
	if o.Window == 0 {
		o.Window = DefaultReloadWindow
	}
	if o.Bound == 0 {
		o.Bound = DefaultReloadBound
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// recent reports a modification time within the window of now, either
// side (a clock a little ahead, as on a network file system, counts).
func (o ReloadOptions) recent(mtime time.Time) bool {
	age := o.Now().Sub(mtime)
	return o.Window > 0 && o.Bound > 0 && age < o.Window && age > -o.Window
}

// A DiskMatch says how the text of a read compares with the file on disk.
type DiskMatch uint8

const (
	// DiskSame: the text is exactly the disk's (always, on the disk
	// route).
	DiskSame DiskMatch = iota
	// DiskDiffers: the editor's text is not the file's on disk: the
	// editor holds unsaved changes, or has not reloaded the file yet.
	DiskDiffers
	// DiskLineEndings: the editor's text is the disk's with every "\r\n"
	// and lone "\r" as "\n", as an editor that keeps "\n" in its buffers
	// (Zed) returns a file with other line endings.
	DiskLineEndings
	// DiskMissing: there is no such file on disk: a new, unsaved buffer.
	DiskMissing
	// DiskUnknown: the file on disk could not be read to compare.
	DiskUnknown
)

// String returns "same", "differs", "lineEndings", "missing" or "unknown".
func (m DiskMatch) String() string {
	switch m {
	case DiskSame:
		return "same"
	case DiskDiffers:
		return "differs"
	case DiskLineEndings:
		return "lineEndings"
	case DiskMissing:
		return "missing"
	}
	return "unknown"
}

// readEditor reads through the editor and compares the text with the disk;
// see [ReloadOptions]. An editor that fails an ask again, or does
// not answer it within the bound, leaves the text it gave before. Only the
// end of ctx ends the read with an error once the first ask succeeded.
func (r *Router) readEditor(ctx context.Context, path string, line, limit int) (string, DiskMatch, error) {
	text, err := r.editor.ReadTextFile(ctx, path, line, limit)
	if err != nil {
		return "", DiskUnknown, err
	}
	match, recent := r.compareDisk(ctx, path, text, line, limit)
	if match != DiskDiffers || !recent {
		return done(ctx, path, text, match)
	}
	bounded, cancel := context.WithTimeout(ctx, r.reload.Bound)
	defer cancel()
	asks := 1
	for wait := reloadFirstWait; match == DiskDiffers && sleep(bounded, wait); wait = min(2*wait, reloadMaxWait) {
		again, err := r.editor.ReadTextFile(bounded, path, line, limit)
		if err != nil {
			if ctx.Err() == nil && bounded.Err() == nil {
				r.log.Debug("read: asking the editor again failed", "path", path, "error", err)
			}
			break
		}
		asks++
		text = again
		match, _ = r.compareDisk(ctx, path, text, line, limit)
	}
	if match == DiskDiffers {
		r.log.Debug("read: the editor's text still differs from the file, which changed on disk just now",
			"path", path, "asks", asks, "bound", r.reload.Bound)
	}
	return done(ctx, path, text, match)
}

// done returns what readEditor read, unless ctx has ended meanwhile.
func done(ctx context.Context, path, text string, match DiskMatch) (string, DiskMatch, error) {
	if err := ctx.Err(); err != nil {
		return "", DiskUnknown, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return text, match, nil
}

// sleep waits for d, and reports false if ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// compareDisk compares text, read through the editor for lines
// [line, line+limit), with the same lines of the file on disk, and
// reports whether the file was modified recently. A whole read is
// compared as it streams, reading at most what the text could match; a
// range is read from disk as [Disk.ReadTextFile] reads it (within the size
// limit) and compared.
func (r *Router) compareDisk(ctx context.Context, path, text string, line, limit int) (DiskMatch, bool) {
	r.compared.Add(1)
	f, info, err := r.disk.openRegular(ctx, "read", path)
	if errors.Is(err, fs.ErrNotExist) {
		return DiskMissing, false
	}
	if err != nil {
		r.log.Debug("read: cannot compare the editor's text with the disk", "path", path, "error", err)
		return DiskUnknown, false
	}
	defer f.Close()
	recent := r.reload.recent(info.ModTime())
	src := ctxReader{ctx, f}
	if line <= 1 && limit <= 0 {
		match, err := matchText(src, text, info.Size())
		if err != nil {
			r.log.Debug("read: cannot compare the editor's text with the disk", "path", path, "error", err)
			return DiskUnknown, false
		}
		return match, recent
	}
	disk, err := readLines(src, line, limit, r.disk.MaxFileSize(), info.Size())
	switch {
	case err == nil:
		return matchString(disk, text), recent
	case errors.Is(err, ErrPastEnd) && text == "":
		// An editor that answers a range past the end with no lines
		// rather than an error agrees with the disk.
		return DiskSame, recent
	case errors.Is(err, ErrPastEnd), errors.Is(err, ErrBinary), errors.Is(err, ErrTooLarge):
		// The editor's lines are text within the limit; the disk has none.
		return DiskDiffers, recent
	}
	r.log.Debug("read: cannot compare the editor's text with the disk", "path", path, "error", err)
	return DiskUnknown, false
}

// matchString compares a file's text on disk with the editor's.
func matchString(disk, text string) DiskMatch {
	if disk == text {
		return DiskSame
	}
	m := lineEndingMatcher{text: text}
	if m.write(bytesOf(disk)); m.done() {
		return DiskLineEndings
	}
	return DiskDiffers
}

// matchText compares what r yields, size bytes by its stat, with text. It
// reads a buffer at a time and stops as soon as neither the exact match
// nor the line-ending one can hold; a file shorter than text is not read.
func matchText(r io.Reader, text string, size int64) (DiskMatch, error) {
	if size < int64(len(text)) {
		return DiskDiffers, nil // either match needs at least len(text) bytes
	}
	exact := size == int64(len(text)) // and then a read must confirm it
	at := 0                           // how much of text the exact match has met
	lines := lineEndingMatcher{text: text}
	buf := make([]byte, min(size+1, readBufSize))
	for exact || !lines.failed {
		n, err := r.Read(buf)
		chunk := buf[:n]
		if exact {
			exact = at+n <= len(text) && string(chunk) == text[at:at+n]
			at += n
		}
		lines.write(chunk)
		if err == io.EOF {
			break
		}
		if err != nil {
			return DiskUnknown, err
		}
	}
	switch {
	case exact && at == len(text):
		return DiskSame, nil
	case lines.done():
		return DiskLineEndings, nil
	}
	return DiskDiffers, nil
}

// lineEndingMatcher matches bytes written to it, with "\r\n" and a lone
// "\r" taken as "\n", against text. It counts as a match only if at least
// one "\r" was met (otherwise the exact comparison decides).
type lineEndingMatcher struct {
	text   string
	at     int  // how much of text is met
	cr     bool // the last byte written was "\r", already met as "\n"
	crs    int  // how many "\r" were met
	failed bool
}

func (m *lineEndingMatcher) write(p []byte) {
	for len(p) > 0 && !m.failed {
		if m.cr {
			m.cr = false
			if p[0] == '\n' { // the "\n" of a "\r\n", met with its "\r"
				p = p[1:]
				continue
			}
		}
		i := bytes.IndexByte(p, '\r')
		if i < 0 {
			m.meet(p)
			return
		}
		m.meet(p[:i])
		m.meetNewline()
		m.cr = true
		m.crs++
		p = p[i+1:]
	}
}

// meet matches b with the text at the matcher's position.
func (m *lineEndingMatcher) meet(b []byte) {
	if m.failed || m.at+len(b) > len(m.text) || string(b) != m.text[m.at:m.at+len(b)] {
		m.failed = true
		return
	}
	m.at += len(b)
}

// meetNewline matches a "\n" with the text at the matcher's position.
func (m *lineEndingMatcher) meetNewline() {
	if m.failed || m.at >= len(m.text) || m.text[m.at] != '\n' {
		m.failed = true
		return
	}
	m.at++
}

// done reports a complete match that involved a "\r".
func (m *lineEndingMatcher) done() bool {
	return !m.failed && m.at == len(m.text) && m.crs > 0
}
