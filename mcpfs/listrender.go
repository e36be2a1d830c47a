package mcpfs

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/internal/lift"
)

// Agents list the same directories again and again, and a directory that
// has not changed comes from runtime's listing cache in a few
// microseconds per hundred entries. Rendering it, as the text content and
// again as the structured content, then costs several times the listing.
// So a listing without details, once rendered, is kept as the two JSON
// values the transport splices into the response (lift.go), and reused for
// as long as a listing of the same path gives the same entries.
//
// A result is a function of the path, the entries and whether they were
// truncated, and a kept render is reused only when all three are equal to
// its own, so it is never stale: a directory that changed lists other
// entries, and gets a new render.

// listRenderMin is the number of entries from which a listing's render is
// kept: a smaller one costs little to render.
const listRenderMin = 64

// listRenderBudget bounds the bytes kept renders hold in all (their
// entries, names included, and the two JSON values), the oldest dropped
// first.
const listRenderBudget = 4 << 20

// listRender is the rendered result of listing path without details. It
// is never modified once kept.
type listRender struct {
	path       string
	entries    []fsruntime.DirEntry
	truncated  bool
	structured []byte // the listOutput, as JSON
	text       []byte // the text content, as a JSON string
	size       int    // the bytes it holds, for the budget
}

// renderCache holds the kept renders, one per path.
type renderCache struct {
	mu    sync.Mutex
	m     map[string]*listRender
	order []string // the keys of m, the oldest kept first
	size  int
}

var listRenders = &renderCache{m: map[string]*listRender{}}

// get returns the render kept for path, or nil.
func (c *renderCache) get(path string) *listRender {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[path]
}

// put keeps r in place of any render of its path, dropping the oldest
// renders while they hold more than the budget.
func (c *renderCache) put(r *listRender) {
	if r.size > listRenderBudget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[r.path]; ok {
		c.size -= old.size
	} else {
		c.order = append(c.order, r.path)
	}
	c.m[r.path] = r
	c.size += r.size
	for c.size > listRenderBudget {
		oldest := c.order[0]
		c.order = c.order[1:]
		c.size -= c.m[oldest].size
		delete(c.m, oldest)
	}
}

// reset forgets every render (for tests).
func (c *renderCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.m)
	c.order, c.size = nil, 0
}

// renderedListing returns list_directory's result, without details, for
// the entries listed at path: a kept render when there is one for the same
// path, entries and truncation, else a new one, kept. It returns nil when
// the transport splices nothing in (then the handler builds the result
// itself) or the listing is too small to keep. entries is not kept; it
// may be modified after.
func renderedListing(ctx context.Context, path string, entries []fsruntime.DirEntry, truncated bool) *mcp.CallToolResult {
	if len(entries) < listRenderMin || !lift.Splices(ctx) {
		return nil
	}
	r := listRenders.get(path)
	if r == nil || r.truncated != truncated || !slices.Equal(r.entries, entries) {
		var err error
		if r, err = renderListing(path, entries, truncated); err != nil {
			return nil // the handler's own encoding will say what is wrong
		}
		listRenders.put(r)
	}
	structured, _ := lift.JSON(ctx, r.structured)
	text, _ := lift.JSON(ctx, r.text)
	return mcp.NewToolResultStructured(structured, text)
}

// renderListing renders the result of listing entries at path.
func renderListing(path string, entries []fsruntime.DirEntry, truncated bool) (*listRender, error) {
	out := listOutput{Path: path, Entries: listEntries(entries), Truncated: truncated}
	size := len(path)
	for _, e := range entries {
		size += len(e.Name)
	}
	structured, err := out.appendJSON(make([]byte, 0, 64+size+len(entries)*32))
	if err != nil {
		return nil, err
	}
	text, err := lift.QuoteJSON(make([]byte, 0, 64+size+len(entries)*16), listText(out))
	if err != nil {
		return nil, err
	}
	r := &listRender{
		path:       path,
		entries:    slices.Clone(entries),
		truncated:  truncated,
		structured: structured,
		text:       text,
	}
	r.size = size + len(entries)*32 + cap(structured) + cap(text) // 32: a DirEntry's two string headers
	return r, nil
}

// textName is a name or path as the text content shows it: as it is, or
// quoted like Go's %q when it holds a character that could fake a line or
// hide what follows (a control character, a line or paragraph separator,
// an invisible format character such as a bidirectional override, or a
// byte that is not UTF-8), or when it starts with a double quote, so that
// a name such as "a\nb", in ordinary characters, does not read as the
// quoted form of another. Structured content keeps the real name.
func textName(s string) string {
	if !needsQuote(s, false) {
		return s
	}
	return strconv.Quote(s)
}

// textLine is a line of a file as grep's text content shows it: quoted as
// textName quotes, except that tabs alone leave it as it is.
func textLine(s string) string {
	if !needsQuote(s, true) {
		return s
	}
	return strconv.Quote(s)
}

// needsQuote reports whether textName quotes s: whether s starts with a
// double quote or holds a character textName quotes; a tab does not count
// when tabs is set.
func needsQuote(s string, tabs bool) bool {
	if strings.HasPrefix(s, `"`) {
		return true
	}
	for i, r := range s {
		switch {
		case r == '\t' && tabs:
		case r < 0x20, r == 0x7f:
			return true
		case r < utf8.RuneSelf:
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return true
		case unicode.IsControl(r), unicode.In(r, unicode.Zl, unicode.Zp, unicode.Cf):
			return true
		}
	}
	return false
}
