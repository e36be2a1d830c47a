package bridge

import "encoding/json"

// marshalTypedStdio encodes a stdio entry as ACP v2 has it, with its type.
func marshalTypedStdio(e MCPServerEntry) ([]byte, error) {
	return json.Marshal(struct {
		Type    string      `json:"type"`
		Name    string      `json:"name"`
		Command string      `json:"command"`
		Args    []string    `json:"args"`
		Env     []NameValue `json:"env"`
	}{"stdio", e.Name, e.Command, nonNil(e.Args), nonNil(e.Env)})
}

// marshalACPEntry encodes an MCP-over-ACP entry.
func marshalACPEntry(e MCPServerEntry) ([]byte, error) {
	return json.Marshal(struct {
		Type     string `json:"type"`
		Name     string `json:"name"`
		ServerID string `json:"serverId"`
	}{"acp", e.Name, e.ServerID})
}
