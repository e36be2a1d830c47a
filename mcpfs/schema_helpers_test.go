package mcpfs_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// toolOutputSchema compiles the output schema of tool as a client that
// validates structured content would, or returns nil for a tool without
// one.
func toolOutputSchema(tb testing.TB, tool mcp.Tool) *jsonschema.Schema {
	tb.Helper()
	raw, err := json.Marshal(tool)
	if err != nil {
		tb.Fatal(err)
	}
	var wire struct {
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(raw, &wire); err != nil {
		tb.Fatal(err)
	}
	return compileOutputSchema(tb, tool.Name, wire.OutputSchema)
}

// compileOutputSchema compiles the output schema raw of the tool name, with
// formats asserted, or returns nil if raw is empty.
func compileOutputSchema(tb testing.TB, name string, raw json.RawMessage) *jsonschema.Schema {
	tb.Helper()
	if len(raw) == 0 {
		return nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		tb.Fatalf("%s: output schema %s: %v", name, raw, err)
	}
	comp := jsonschema.NewCompiler()
	comp.AssertFormat()
	url := "mem:///" + name + ".json"
	if err := comp.AddResource(url, doc); err != nil {
		tb.Fatal(err)
	}
	sch, err := comp.Compile(url)
	if err != nil {
		tb.Fatalf("%s: output schema does not compile: %v", name, err)
	}
	return sch
}
