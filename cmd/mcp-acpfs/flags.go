package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"strings"

	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// newFlagSet returns a FlagSet for command name that reports errors to
// e.stderr and leaves usage to [parse].
func newFlagSet(name string, e *env) *flag.FlagSet {
	fs := flag.NewFlagSet("mcp-acpfs "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {}
	return fs
}

// parse parses args for c. ok is false when the command must not go on; code
// is then its exit code: 0 after -h, which prints c's usage to stderr, and 2
// after an error, which prints the error and a usage line.
func parse(fs *flag.FlagSet, args []string, e *env, c *command) (code int, ok bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return exitOK, true
	case errors.Is(err, flag.ErrHelp):
		c.usage(e.stderr)
		return exitOK, false
	}
	usageLine(e.stderr, c)
	return exitUsage, false
}

// parseInterleaved parses args for c like [parse], but lets flags and
// operands mix: Go's flag package stops at the first operand, so the rest
// is parsed again after each one, and "serve DIR --read-only" reads the
// flag rather than taking it for a second DIR. operand receives each
// operand in the order given; after "--" every item is an operand.
func parseInterleaved(fs *flag.FlagSet, args []string, e *env, c *command, operand func(string)) (code int, ok bool) {
	for {
		if code, ok := parse(fs, args, e, c); !ok {
			return code, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return exitOK, true
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			for _, a := range rest {
				operand(a)
			}
			return exitOK, true
		}
		operand(rest[0])
		args = rest[1:]
	}
}

// usageLine prints the first line of c's usage and where to find the rest.
func usageLine(w io.Writer, c *command) {
	var b strings.Builder
	c.usage(&b)
	line, _, _ := strings.Cut(b.String(), "\n")
	fmt.Fprintf(w, "%s\nrun 'mcp-acpfs %s -h' for help\n", line, c.name)
}

// rootsFlag collects the values of a repeated flag.
type rootsFlag []string

func (f *rootsFlag) String() string { return strings.Join(*f, ", ") }

func (f *rootsFlag) Set(s string) error {
	if s == "" {
		return errors.New("empty directory")
	}
	*f = append(*f, s)
	return nil
}

// sizeFlag is a size in bytes, given as a number with an optional binary
// unit.
type sizeFlag int64

func (f *sizeFlag) String() string { return strconv.FormatInt(int64(*f), 10) }

func (f *sizeFlag) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*f = sizeFlag(n)
	return nil
}

// units are the size units parseSize accepts, in lower case. K, M and G are
// binary, as KiB, MiB and GiB.
var units = map[string]int64{
	"":    1,
	"b":   1,
	"k":   1 << 10,
	"kib": 1 << 10,
	"m":   1 << 20,
	"mib": 1 << 20,
	"g":   1 << 30,
	"gib": 1 << 30,
}

// parseSize parses a positive size such as "1048576", "512KiB", "10M" or
// "1 GiB".
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if i < 0 {
		i = len(s)
	}
	digits, unit := s[:i], strings.ToLower(strings.TrimSpace(s[i:]))
	if digits == "" {
		return 0, fmt.Errorf("%q is not a size: want a number of bytes, optionally with a unit (KiB, MiB, GiB)", s)
	}
	mult, ok := units[unit]
	if !ok {
		return 0, fmt.Errorf("%q has an unknown unit %q: use B, KiB, MiB or GiB (K, M, G mean the same)", s, s[i:])
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is too large", s)
	}
	if n == 0 {
		return 0, fmt.Errorf("%q: the size must be positive", s)
	}
	return n * mult, nil
}

// levelFlag is a log level.
type levelFlag struct{ slog.LevelVar }

func (f *levelFlag) Set(s string) error {
	switch strings.ToLower(s) {
	case "debug", "info", "warn", "error":
		return f.UnmarshalText([]byte(s))
	}
	return fmt.Errorf("%q is not a log level: want debug, info, warn or error", s)
}

// toolFlags adds the flags that shape the tools' results, shared by serve
// and proxy, which set o.
func toolFlags(fs *flag.FlagSet, o *mcpfs.ToolOptions) {
	fs.Func("page-size", "the most a read without a limit returns; 0 for no page", func(s string) error {
		if s == "0" {
			o.PageSize = -1 // ToolOptions: no page
			return nil
		}
		n, err := parseSize(s)
		if err != nil {
			return err
		}
		o.PageSize = int(min(n, math.MaxInt32))
		return nil
	})
	fs.TextVar(&o.LineNumbers, "line-numbers", mcpfs.ToggleAuto, "auto, on or off")
	fs.BoolVar(&o.NoReadGuard, "no-read-guard", false, "let writes change files the session has not read, or that changed since")
	fs.BoolVar(&o.StructuredContent, "structured-content", false, "return structured results beside the text")
}

// toolFlagsUsage documents toolFlags, for the commands' usage texts.
const toolFlagsUsage = `  --page-size N
	the most read_text_file returns when the call gives no limit, in
	bytes or with a binary unit (16KiB); the result then says where to
	go on. The default fits the MCP client, as its clientInfo names it
	(12KiB when it is not known); 0 reads to the end of the file.
  --line-numbers auto|on|off
	whether read_text_file numbers its lines when the call does not say.
	auto numbers them for a host whose own read does (Claude Code).
  --no-read-guard
	let write_text_file and edit_text_file change a file that the MCP
	session has not read, or that changed since it last read it. By
	default they refuse, and nothing is written.
  --structured-content
	declare output schemas and return each result's structured form
	beside its text, for programs. Some hosts then show their model the
	structured form alone.
`
