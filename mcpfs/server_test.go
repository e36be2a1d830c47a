package mcpfs_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

func TestNewServerRejectsBadSession(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	if _, err := mcpfs.NewServer(mcpfs.Files{WorkDir: f.Dir}, mcpfs.Options{Tools: mcpfstest.Structured}); err == nil {
		t.Error("NewServer with a nil FS: no error")
	}
	if _, err := mcpfs.NewServer(mcpfs.Files{WorkDir: "rel", FS: f.Disk}, mcpfs.Options{Tools: mcpfstest.Structured}); err == nil {
		t.Error("NewServer with a relative WorkDir: no error")
	}
}

func TestListTools(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			f := mcpfstest.NewFixture(t, false)
			tools := mcpfstest.Tools(t, mcpfstest.Connect(t, f.Srv, era.Version))
			if tools[mcpfs.ReadTextFile].Name == "" || tools[mcpfs.WriteTextFile].Name == "" {
				t.Fatalf("tools: %v, want read_text_file and write_text_file among them", slices.Sorted(maps.Keys(tools)))
			}
			type hints struct{ readOnly, destructive, idempotent, openWorld bool }
			for name, want := range map[string]struct {
				hints    hints
				required []string
				props    map[string]string // name → type
			}{
				mcpfs.ReadTextFile: {
					hints{readOnly: true, destructive: false, idempotent: true, openWorld: false},
					[]string{"path"},
					map[string]string{"path": "string", "line": "integer", "limit": "integer", "lineNumbers": "boolean"},
				},
				mcpfs.WriteTextFile: {
					hints{readOnly: false, destructive: true, idempotent: true, openWorld: false},
					[]string{"path", "content"},
					map[string]string{"path": "string", "content": "string", "expectedHash": "string"},
				},
			} {
				tool, ok := tools[name]
				if !ok {
					t.Errorf("no tool %s", name)
					continue
				}
				if tool.Title == "" || tool.Annotations.Title == "" {
					t.Errorf("%s: no title", name)
				}
				for _, phrase := range []string{f.Dir, "1.0 KiB"} {
					if name != mcpfs.ReadTextFile && phrase == f.Dir {
						continue // said once, in the read's description
					}
					if !strings.Contains(tool.Description, phrase) {
						t.Errorf("%s: description does not mention %q:\n%s", name, phrase, tool.Description)
					}
				}
				a := tool.Annotations
				if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
					t.Fatalf("%s: annotations not all set: %+v", name, a)
				}
				got := hints{*a.ReadOnlyHint, *a.DestructiveHint, *a.IdempotentHint, *a.OpenWorldHint}
				if got != want.hints {
					t.Errorf("%s: hints %+v, want %+v", name, got, want.hints)
				}

				var schema struct {
					Type                 string                    `json:"type"`
					Required             []string                  `json:"required"`
					Properties           map[string]map[string]any `json:"properties"`
					AdditionalProperties *bool                     `json:"additionalProperties"`
				}
				raw, err := json.Marshal(tool.InputSchema)
				if err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(raw, &schema); err != nil {
					t.Fatal(err)
				}
				if schema.Type != "object" || schema.AdditionalProperties == nil || *schema.AdditionalProperties {
					t.Errorf("%s: schema %s, want an object without additional properties", name, raw)
				}
				if strings.Join(schema.Required, ",") != strings.Join(want.required, ",") {
					t.Errorf("%s: required %v, want %v", name, schema.Required, want.required)
				}
				if len(schema.Properties) != len(want.props) {
					t.Errorf("%s: properties %s, want %v", name, raw, want.props)
				}
				for p, typ := range want.props {
					if got := schema.Properties[p]["type"]; got != typ {
						t.Errorf("%s: property %s has type %v, want %s", name, p, got, typ)
					}
					if d, _ := schema.Properties[p]["description"].(string); d == "" {
						t.Errorf("%s: property %s has no description", name, p)
					}
				}
				if name == mcpfs.ReadTextFile {
					if m := schema.Properties["line"]["minimum"]; m != 0.0 {
						t.Errorf("line minimum %v, want 0", m)
					}
					if m := schema.Properties["limit"]["minimum"]; m != 1.0 {
						t.Errorf("limit minimum %v, want 1", m)
					}
				}
			}
		})
	}
}

func TestServerInfo(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	c, err := client.NewInProcessClient(f.Srv)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.ServerInfo.Name != "mcp-acpfs" || res.Instructions == "" || res.Capabilities.Tools == nil {
		t.Errorf("initialize result %+v", res)
	}
}
