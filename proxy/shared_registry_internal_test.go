package proxy

import "testing"

// sharesRegistry recognises opencode by its agentInfo.name, or by the
// program its command line runs, and nothing else.
func TestSharesRegistry(t *testing.T) {
	for _, tc := range []struct {
		name string
		argv []string
		want bool
	}{
		{"OpenCode", nil, true},
		{"", []string{"/usr/lib/node_modules/opencode-linux-x64/bin/opencode", "acp"}, true},
		{"", []string{`C:\tools\opencode.exe`, "acp"}, true},
		{"", []string{"opencode-wrapper.sh"}, false},
		{"", []string{"node", "/x/opencode"}, false}, // only the program itself
		{"opencode", nil, false},                     // agentInfo.name is OpenCode
		{"gemini-cli", []string{"gemini", "--acp"}, false},
		{"", nil, false},
	} {
		if got := sharesRegistry(tc.name, tc.argv); got != tc.want {
			t.Errorf("sharesRegistry(%q, %q) = %v, want %v", tc.name, tc.argv, got, tc.want)
		}
	}
}
