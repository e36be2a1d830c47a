package mcpfs

import (
	"cmp"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// The change notifications of file:// resources.
//
// fsnotify is not recursive, and a root may hold a large tree, so nothing is
// watched up front: a subscription to a file watches the file's parent
// directory, which is where an atomic write (a temporary file renamed over
// the target) shows up, as Create and Rename events for the file's name. A
// directory is watched while at least one of its files is subscribed, and
// the fsnotify watcher itself exists only while at least one directory is
// watched: when the last subscription ends, by unsubscribe or with its MCP
// session, the watcher is closed and its goroutines end.
//
// Events are debounced per file: a file is reported once its events have
// been quiet for the debounce delay (or, if they never are, at least every
// maxDebounce delays), so a burst of writes gives one notifications/resources/updated
// to each subscriber. One goroutine reads the events and sends the
// notifications, in the order their delays end.

// unwatchedDirs are the directories whose files are never watched: a
// subscription to a file under one of them (below a root) is accepted but
// never notified.
var unwatchedDirs = []string{".git", "node_modules", "dist", "build", "__pycache__", ".next"}

// underUnwatched reports whether path lies under one of unwatchedDirs, below
// the deepest of roots that holds it. Directory names above the root do not
// count (a project may live in a directory named build). With no root
// holding path, every directory on the way counts.
func underUnwatched(path string, roots []string) bool {
	rel := ""
	for _, r := range roots {
		if x, ok := relWithin(r, path); ok && (rel == "" || len(x) < len(rel)) {
			rel = x
		}
	}
	if rel == "" {
		rel = strings.TrimLeft(filepath.ToSlash(path), "/")
	}
	dirs := strings.Split(filepath.ToSlash(rel), "/")
	for _, d := range dirs[:len(dirs)-1] { // the file's own name does not count
		if slices.Contains(unwatchedDirs, d) {
			return true
		}
	}
	return false
}

// relWithin returns p relative to dir if p lies strictly inside dir.
func relWithin(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// Debounce delays of [watcher].
const (
	// defaultDebounce is how long a file's events must be quiet before its
	// subscribers are told it changed.
	defaultDebounce = 100 * time.Millisecond
	// maxDebounce bounds how long a file that keeps changing goes
	// unreported, as a multiple of the debounce delay.
	maxDebounce = 10
)

// subKey identifies a subscriber: an MCP session of protocol 2025-11-25 or
// earlier (by id), or one subscriptions/listen stream of a 2026-07-28
// client (by the session serving it and the request's id).
type subKey struct {
	id     string // a legacy session's id
	listen any    // the server.ClientSession of a listen stream
	req    string // the JSON-RPC id of the subscriptions/listen request
}

// subscriber is one subscriber's resource subscriptions.
type subscriber struct {
	key   subKey
	send  func(uri string) error // sends notifications/resources/updated
	paths map[string]bool        // the files subscribed to
}

// watchedFile is a subscribed file: its subscribers, with the URIs each
// subscribed to it with (a client may spell a file's URI in more than one
// way; each is notified as subscribed).
type watchedFile struct {
	dir  string // the directory watched for it; "" if it is not watched
	uris map[*subscriber][]string
}

// watcher tracks the resource subscriptions of one MCP server and watches
// the files subscribed to.
type watcher struct {
	log   *slog.Logger
	delay time.Duration

	// opMu serializes subscription changes, and with them the changes to
	// the set of watched directories, which call into fsnotify. It is taken
	// before mu. The event loop never takes it, and fsnotify is never
	// called with mu held: fsnotify may block sending an event to the loop
	// while it holds its own lock.
	opMu sync.Mutex
	dirs map[string]int // watched directory → its subscribed files; with opMu

	mu    sync.Mutex
	fsw   *fsnotify.Watcher // nil when no directory is watched
	done  chan struct{}     // closed when fsw's loop has ended
	subs  map[subKey]*subscriber
	files map[string]*watchedFile // by path
}

func newWatcher(log *slog.Logger) *watcher {
	return &watcher{
		log:   log,
		delay: defaultDebounce,
		dirs:  make(map[string]int),
		subs:  make(map[subKey]*subscriber),
		files: make(map[string]*watchedFile),
	}
}

// subscribe records that k subscribes to the file at path with uri, and
// watches the file's directory unless unwatched. send is k's way to notify;
// the first subscription of k sets it. An error leaves nothing changed.
func (w *watcher) subscribe(k subKey, send func(uri string) error, uri, path string, unwatched bool) error {
	w.opMu.Lock()
	defer w.opMu.Unlock()
	w.mu.Lock()
	f := w.files[path]
	w.mu.Unlock()
	dir := ""
	if !unwatched && (f == nil || f.dir == "") {
		// The file's first watched subscription. (An earlier one may have
		// been unwatched under other roots: a client's roots can move the
		// root a file lies below.)
		dir = filepath.Dir(path)
		if err := w.watchDirLocked(dir); err != nil {
			return err
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.subs[k]
	if s == nil {
		s = &subscriber{key: k, send: send, paths: make(map[string]bool)}
		w.subs[k] = s
	}
	if f == nil {
		f = &watchedFile{uris: make(map[*subscriber][]string)}
		w.files[path] = f
	}
	if dir != "" {
		f.dir = dir
	}
	s.paths[path] = true
	if !slices.Contains(f.uris[s], uri) {
		f.uris[s] = append(f.uris[s], uri)
	}
	return nil
}

// unsubscribe ends k's subscription to the file at path, under whatever
// URIs. Ending one that does not exist does nothing.
func (w *watcher) unsubscribe(k subKey, path string) {
	w.opMu.Lock()
	defer w.opMu.Unlock()
	w.mu.Lock()
	s := w.subs[k]
	var gone []*watchedFile
	if s != nil {
		gone = w.dropLocked(s, path)
	}
	w.mu.Unlock()
	w.unwatchLocked(gone)
}

// drop ends every subscription of the subscribers that match.
func (w *watcher) drop(match func(subKey) bool) {
	w.opMu.Lock()
	defer w.opMu.Unlock()
	w.mu.Lock()
	var gone []*watchedFile
	for k, s := range w.subs {
		if !match(k) {
			continue
		}
		for path := range s.paths {
			gone = append(gone, w.dropLocked(s, path)...)
		}
	}
	w.mu.Unlock()
	w.unwatchLocked(gone)
}

// dropLocked ends s's subscription to path, and returns the file if that
// was its last subscriber.
func (w *watcher) dropLocked(s *subscriber, path string) []*watchedFile {
	if !s.paths[path] {
		return nil
	}
	delete(s.paths, path)
	if len(s.paths) == 0 {
		delete(w.subs, s.key)
	}
	f := w.files[path]
	delete(f.uris, s)
	if len(f.uris) > 0 {
		return nil
	}
	delete(w.files, path)
	return []*watchedFile{f}
}

// watchDirLocked counts one more subscribed file in dir, watching dir if it
// is the first, and starting the watcher if dir is the first directory.
// w.opMu is held.
func (w *watcher) watchDirLocked(dir string) error {
	if w.dirs[dir] > 0 {
		w.dirs[dir]++
		return nil
	}
	w.mu.Lock()
	fsw := w.fsw
	w.mu.Unlock()
	if fsw == nil {
		var err error
		if fsw, err = fsnotify.NewWatcher(); err != nil {
			return err
		}
		done := make(chan struct{})
		w.mu.Lock()
		w.fsw, w.done = fsw, done
		w.mu.Unlock()
		go w.loop(fsw, done)
	}
	if err := fsw.Add(dir); err != nil {
		if len(w.dirs) == 0 {
			w.stopLocked()
		}
		return err
	}
	w.dirs[dir] = 1
	return nil
}

// unwatchLocked uncounts the files gone from their directories, stops
// watching a directory with none left, and stops the watcher when no
// directory is left. w.opMu is held.
func (w *watcher) unwatchLocked(gone []*watchedFile) {
	if len(gone) == 0 {
		return
	}
	w.mu.Lock()
	fsw := w.fsw
	w.mu.Unlock()
	for _, f := range gone {
		if f.dir == "" {
			continue
		}
		if w.dirs[f.dir]--; w.dirs[f.dir] > 0 {
			continue
		}
		delete(w.dirs, f.dir)
		// An error means the directory went away, and its watch with it.
		if err := fsw.Remove(f.dir); err != nil && !errors.Is(err, fsnotify.ErrNonExistentWatch) {
			w.log.Debug("unwatching a directory", "dir", f.dir, "err", err)
		}
	}
	if len(w.dirs) == 0 {
		w.stopLocked()
	}
}

// stopLocked closes the watcher, if any, and waits for its loop to end.
// w.opMu is held.
func (w *watcher) stopLocked() {
	w.mu.Lock()
	fsw, done := w.fsw, w.done
	w.fsw, w.done = nil, nil
	w.mu.Unlock()
	if fsw == nil {
		return
	}
	if err := fsw.Close(); err != nil {
		w.log.Debug("closing the file watcher", "err", err)
	}
	<-done
}

// due is a file whose notification waits for its events to be quiet.
type due struct {
	path  string
	first time.Time // the first event since the last notification
	at    time.Time // when to notify
	seq   uint64    // orders files due at the same time by their last event
}

// loop reads fsw's events until fsw is closed, and sends the debounced
// notifications.
func (w *watcher) loop(fsw *fsnotify.Watcher, done chan struct{}) {
	defer close(done)
	pending := make(map[string]*due)
	var seq uint64
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	rearm := func() {
		timer.Stop()
		if len(pending) == 0 {
			return
		}
		next := time.Time{}
		for _, d := range pending {
			if next.IsZero() || d.at.Before(next) {
				next = d.at
			}
		}
		timer.Reset(max(time.Until(next), 0))
	}
	mark := func(path string, now time.Time) {
		seq++
		d := pending[path]
		if d == nil {
			d = &due{path: path, first: now}
			pending[path] = d
		}
		d.at = now.Add(w.delay)
		if limit := d.first.Add(maxDebounce * w.delay); limit.Before(d.at) {
			d.at = limit
		}
		d.seq = seq
	}
	for {
		select {
		case ev, ok := <-fsw.Events:
			if !ok {
				return
			}
			if !ev.Has(fsnotify.Write) && !ev.Has(fsnotify.Create) && !ev.Has(fsnotify.Remove) && !ev.Has(fsnotify.Rename) {
				continue // Chmod: the content is the same
			}
			path := filepath.Clean(ev.Name)
			w.mu.Lock()
			f := w.files[path]
			watched := f != nil && f.dir != ""
			w.mu.Unlock()
			if watched {
				mark(path, time.Now())
				rearm()
			}
		case err, ok := <-fsw.Errors:
			if !ok {
				return
			}
			if !errors.Is(err, fsnotify.ErrEventOverflow) {
				w.log.Warn("watching files for resource subscriptions", "err", err)
				continue
			}
			// Events were lost: any subscribed file may have changed.
			w.log.Warn("file events were lost; notifying every subscribed file")
			now := time.Now()
			w.mu.Lock()
			var paths []string
			for path, f := range w.files {
				if f.dir != "" {
					paths = append(paths, path)
				}
			}
			w.mu.Unlock()
			for _, p := range paths {
				mark(p, now)
			}
			rearm()
		case <-timer.C:
			now := time.Now()
			var ready []*due
			for path, d := range pending {
				if !d.at.After(now) {
					ready = append(ready, d)
					delete(pending, path)
				}
			}
			slices.SortFunc(ready, func(a, b *due) int {
				return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.seq, b.seq))
			})
			for _, d := range ready {
				w.notify(d.path)
			}
			rearm()
		}
	}
}

// notify sends notifications/resources/updated to the subscribers of the
// file at path. Sending never blocks: a client whose queue is full misses
// the notification.
func (w *watcher) notify(path string) {
	type note struct {
		send func(string) error
		uri  string
	}
	var notes []note
	w.mu.Lock()
	if f := w.files[path]; f != nil {
		for s, uris := range f.uris {
			for _, uri := range uris {
				notes = append(notes, note{s.send, uri})
			}
		}
	}
	w.mu.Unlock()
	for _, n := range notes {
		if err := n.send(n.uri); err != nil {
			w.log.Debug("could not send a resource update", "uri", n.uri, "err", err)
		}
	}
}
