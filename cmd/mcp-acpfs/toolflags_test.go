package main

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// TestToolFlags checks that serve and proxy turn the flags that shape the
// tools' results into the same ToolOptions, and refuse bad values.
func TestToolFlags(t *testing.T) {
	e := &env{stderr: io.Discard, getenv: func(string) string { return "" }}
	for _, tc := range []struct {
		args []string
		want mcpfs.ToolOptions
		err  string
	}{
		{nil, mcpfs.ToolOptions{}, ""},
		{[]string{"--page-size", "16KiB"}, mcpfs.ToolOptions{PageSize: 16 << 10}, ""},
		{[]string{"--page-size", "0"}, mcpfs.ToolOptions{PageSize: -1}, ""},
		{[]string{"--page-size", "-3"}, mcpfs.ToolOptions{}, "page-size"},
		{[]string{"--line-numbers", "on"}, mcpfs.ToolOptions{LineNumbers: mcpfs.ToggleOn}, ""},
		{[]string{"--line-numbers", "off"}, mcpfs.ToolOptions{LineNumbers: mcpfs.ToggleOff}, ""},
		{[]string{"--line-numbers", "yes"}, mcpfs.ToolOptions{}, `invalid value "yes": want auto, on or off`},
		{[]string{"--no-read-guard", "--structured-content"}, mcpfs.ToolOptions{NoReadGuard: true, StructuredContent: true}, ""},
	} {
		var serve serveConfig
		err := serveFlags(&serve, e).Parse(tc.args)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("serve %v: error %v, want one naming %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("serve %v: %v", tc.args, err)
		}
		if !reflect.DeepEqual(serve.tools, tc.want) {
			t.Errorf("serve %v: %+v, want %+v", tc.args, serve.tools, tc.want)
		}
		var proxy proxyConfig
		if err := proxyFlags(&proxy, e).Parse(append(tc.args, "--", "agent")); err != nil {
			t.Fatalf("proxy %v: %v", tc.args, err)
		}
		if got := proxy.bridgeOptions(nil).Tools; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("proxy %v: BridgeOptions.Tools = %+v, want %+v", tc.args, got, tc.want)
		}
	}
}
