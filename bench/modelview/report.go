package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// A Cell is what one host's model receives for one row.
type Cell struct {
	Bytes int `json:"bytes"`           // text
	Media int `json:"media,omitempty"` // images, audio and blobs passed as media
	// Sent is the size of the result as the server sent it (JSON), for
	// the rows of a tool call.
	Sent int `json:"sent,omitempty"`
}

// A Native is a host's own tool's figure for the same row.
type Native struct {
	Host  string `json:"host"`
	Tool  string `json:"tool"`
	Bytes int    `json:"bytes"`
	// Reference is true for a figure taken from model-view.md, false for
	// one computed here.
	Reference bool `json:"reference"`
}

// A Row is one workload, or one set of tool definitions, under one set of
// tool options.
type Row struct {
	ID       string          `json:"id"`
	Workload string          `json:"workload"`
	Tool     string          `json:"tool"`
	Options  string          `json:"options"` // "default" or "structuredContent"
	Hosts    map[string]Cell `json:"hosts"`   // by host name
	Native   []Native        `json:"native,omitempty"`
	// GoalMet says, for each host with a Native, whether its bytes are at
	// most its own tool's.
	GoalMet map[string]bool `json:"goalMet,omitempty"`
	// Table marks the rows the markdown table shows; -json has them all.
	Table bool `json:"-"`
}

// The option sets measured: the default (the zero ToolOptions, what users
// get) and structuredContent on, for comparison.
var optionSets = []struct {
	Name string
	Opts mcpfs.ToolOptions
}{
	{"default", mcpfs.ToolOptions{}},
	{"structuredContent", mcpfs.ToolOptions{StructuredContent: true}},
}

// measure runs every workload for every host under every option set.
func measure(ctx context.Context) ([]Row, error) {
	files, dir, closeFiles, err := openFixtures()
	if err != nil {
		return nil, err
	}
	defer closeFiles()
	wls := workloads(dir)
	var rows []Row
	for _, set := range optionSets {
		calls := make([]Row, len(wls))
		for i, w := range wls {
			calls[i] = Row{ID: w.ID, Workload: w.Name, Tool: w.Tool, Options: set.Name, Hosts: map[string]Cell{},
				Table: set.Name == "default" || w.ID == "read-4k"}
			if w.Text != "" {
				calls[i].Native = []Native{
					{Host: "claude", Tool: "Read", Bytes: len(claudeRead(w.Text))},
					{Host: "gemini", Tool: "read_file", Bytes: len(geminiReadFile(w.Text))},
				}
			}
		}
		// Each host's tools/list; a tool a host is not offered (should the
		// server tailor the list by clientInfo) is counted as a client
		// that names no host is offered it.
		neutral, err := listAs(ctx, files, set.Opts, clientNeutral)
		if err != nil {
			return nil, fmt.Errorf("tools/list, %s options: %w", set.Name, err)
		}
		defs := make(map[string]map[string]definition)
		for _, h := range hosts {
			s, err := dial(ctx, files, set.Opts, h.Client)
			if err != nil {
				return nil, err
			}
			for i, w := range wls {
				if err := runWorkload(ctx, s, h, w, calls[i].Hosts); err != nil {
					s.Close()
					return nil, fmt.Errorf("%s, %s, %s options: %w", w.Name, h.Name, set.Name, err)
				}
			}
			d, err := s.definitions(ctx)
			s.Close()
			if err != nil {
				return nil, fmt.Errorf("tools/list, %s, %s options: %w", h.Name, set.Name, err)
			}
			for name, def := range neutral {
				if _, ok := d[name]; !ok {
					d[name] = def
				}
			}
			defs[h.Name] = d
		}
		rows = append(rows, calls...)
		d, err := definitionRows(set.Name, defs)
		if err != nil {
			return nil, err
		}
		rows = append(rows, d...)
	}
	for i := range rows {
		rows[i].judge()
	}
	return rows, nil
}

// listAs returns the tools/list of a server with opts to a client named
// clientName.
func listAs(ctx context.Context, files mcpfs.Files, opts mcpfs.ToolOptions, clientName string) (map[string]definition, error) {
	s, err := dial(ctx, files, opts, clientName)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.definitions(ctx)
}

func runWorkload(ctx context.Context, s *session, h Host, w workload, cells map[string]Cell) error {
	if w.Before != nil {
		if err := w.Before(ctx, s); err != nil {
			return err
		}
	}
	res, err := s.call(ctx, w.Tool, w.Args)
	if err != nil {
		return err
	}
	v, err := h.Render(res)
	if err != nil {
		return err
	}
	cells[h.Name] = Cell{Bytes: v.Bytes(), Media: v.Media, Sent: len(res)}
	return nil
}

// allTools are the twelve, as tools/list has them with no Only.
var allTools = []string{
	mcpfs.ReadTextFile, mcpfs.WriteTextFile, mcpfs.EditTextFile, mcpfs.ReadMediaFile,
	mcpfs.GetFileInfo, mcpfs.ListDirectory, mcpfs.DirectoryTree, mcpfs.Glob, mcpfs.Grep,
	mcpfs.CreateDirectory, mcpfs.MoveFile, mcpfs.DeleteFile,
}

// definitionRows are the rows of the tool definitions, defs being each
// host's tools/list by tool name: "tool definitions" count what the hosts
// give the model (name, description, input schema), "tools/list as sent"
// the whole objects (title, output schema and annotations too). The subsets are counted here from the
// full list, whatever ToolOptions.Only does.
func definitionRows(options string, defs map[string]map[string]definition) ([]Row, error) {
	def := options == "default"
	specs := []struct {
		id, workload, tool string
		tools              func(Host) []string
		wire               bool
		native             []Native
		table              bool
	}{
		{"defs-12", "definitions", "all 12 tools",
			func(Host) []string { return allTools }, false, nil, def},
		{"defs-host", "definitions", "the host's",
			hostTools, false, []Native{{Host: "claude", Tool: "Read+Write+Edit+NotebookEdit",
				Bytes: claudeReplacedDefs, Reference: true}}, def},
		{"wire-12", "tools/list as sent", "all 12 tools",
			func(Host) []string { return allTools }, true, nil, false},
		{"wire-host", "tools/list as sent", "the host's",
			hostTools, true, nil, false},
		{"def-read", "definition", mcpfs.ReadTextFile + " + " + mcpfs.ReadMediaFile,
			fixed(mcpfs.ReadTextFile, mcpfs.ReadMediaFile), false,
			[]Native{{Host: "claude", Tool: "Read", Bytes: claudeReadDef, Reference: true}}, def},
		{"def-write", "definition", mcpfs.WriteTextFile, fixed(mcpfs.WriteTextFile), false,
			[]Native{{Host: "claude", Tool: "Write", Bytes: claudeWriteDef, Reference: true}}, def},
		{"def-edit", "definition", mcpfs.EditTextFile, fixed(mcpfs.EditTextFile), false,
			[]Native{{Host: "claude", Tool: "Edit", Bytes: claudeEditDef, Reference: true}}, def},
		{"def-glob", "definition", mcpfs.Glob, fixed(mcpfs.Glob), false,
			[]Native{{Host: "claude", Tool: "Glob", Bytes: claudeGlobDef, Reference: true}}, def},
		{"def-grep", "definition", mcpfs.Grep, fixed(mcpfs.Grep), false,
			[]Native{{Host: "claude", Tool: "Grep", Bytes: claudeGrepDef, Reference: true}}, def},
	}
	rows := make([]Row, 0, len(specs))
	for _, sp := range specs {
		r := Row{ID: sp.id, Workload: sp.workload, Tool: sp.tool, Options: options,
			Hosts: map[string]Cell{}, Native: sp.native, Table: sp.table}
		for _, h := range hosts {
			n := 0
			for _, name := range sp.tools(h) {
				d, ok := defs[h.Name][name]
				if !ok {
					return nil, fmt.Errorf("tools/list for %s, %s options, has no %s", h.Name, options, name)
				}
				if sp.wire {
					n += d.Wire
				} else {
					n += d.Model
				}
			}
			r.Hosts[h.Name] = Cell{Bytes: n}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func hostTools(h Host) []string {
	if h.Tools == nil {
		return allTools
	}
	return h.Tools
}

func fixed(names ...string) func(Host) []string { return func(Host) []string { return names } }

// judge sets r.GoalMet.
func (r *Row) judge() {
	for _, n := range r.Native {
		if c, ok := r.Hosts[n.Host]; ok {
			if r.GoalMet == nil {
				r.GoalMet = map[string]bool{}
			}
			r.GoalMet[n.Host] = c.Bytes <= n.Bytes
		}
	}
}

// writeTable prints the rows marked for it as a markdown table. A
// definitions row with the same figure for every host goes in a line
// under the table instead.
func writeTable(w io.Writer, rows []Row) error {
	var b strings.Builder
	b.WriteString("| workload | tool |")
	for _, h := range hosts {
		b.WriteString(" " + h.Name + " |")
	}
	b.WriteString(" own tool | goal met |\n| --- | --- |")
	for range hosts {
		b.WriteString(" ---: |")
	}
	b.WriteString(" --- | --- |\n")
	var alike []string
	judged := map[string]bool{} // the hosts whose own tools the alike rows compare with
	for _, r := range rows {
		if !r.Table {
			continue
		}
		var own, goal []string
		for _, n := range r.Native {
			own = append(own, n.Tool+" "+thousands(n.Bytes))
			mark := "no"
			if r.GoalMet[n.Host] {
				mark = "yes"
			}
			goal = append(goal, n.Host+" "+mark)
		}
		if n, ok := r.same(); ok && strings.HasPrefix(r.ID, "def") {
			s := code(r.Tool) + " " + thousands(n)
			for _, nat := range r.Native {
				op := " > "
				if r.GoalMet[nat.Host] {
					op = " ≤ "
				}
				s += op + nat.Tool + " " + thousands(nat.Bytes)
				judged[nat.Host] = true
			}
			alike = append(alike, s)
			continue
		}
		name := r.Workload
		if r.Options != "default" {
			name += ", with structuredContent"
		}
		fmt.Fprintf(&b, "| %s | %s |", name, code(r.Tool))
		for _, h := range hosts {
			c := r.Hosts[h.Name]
			b.WriteString(" " + thousands(c.Bytes))
			if c.Media > 0 {
				fmt.Fprintf(&b, " + %d media", c.Media)
			}
			b.WriteString(" |")
		}
		b.WriteString(cell(strings.Join(own, ", ")) + cell(strings.Join(goal, ", ")) + "\n")
	}
	if len(alike) > 0 {
		var whose []string
		for _, h := range hosts {
			if judged[h.Name] {
				whose = append(whose, h.Name+"'s")
			}
		}
		against := ""
		if len(whose) > 0 {
			against = " (against " + strings.Join(whose, " and ") + " own; goal: ≤)"
		}
		fmt.Fprintf(&b, "\nDefinitions alike for every host%s: %s.\n", against, strings.Join(alike, "; "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell is a table cell after its left bar; an empty one is " |", as the
// other tables in BENCHMARKS.md have it.
func cell(s string) string {
	if s == "" {
		return " |"
	}
	return " " + s + " |"
}

// same returns the figure every host has in r, if they all have the same.
func (r *Row) same() (int, bool) {
	n := r.Hosts[hosts[0].Name].Bytes
	for _, h := range hosts[1:] {
		if r.Hosts[h.Name].Bytes != n || r.Hosts[h.Name].Media != 0 {
			return 0, false
		}
	}
	return n, r.Hosts[hosts[0].Name].Media == 0
}

// code puts a tool's name in backquotes; other text is left as is.
func code(s string) string {
	for _, t := range allTools {
		if strings.HasPrefix(s, t) {
			return "`" + strings.ReplaceAll(s, " + ", "` + `") + "`"
		}
	}
	return s
}

// thousands formats n with commas: 16,770.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
