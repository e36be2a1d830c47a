package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	vcs := func(version string, settings ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/mcp-acpfs/mcp-acpfs", Version: version}}
		for i := 0; i+1 < len(settings); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return info
	}
	for _, tc := range []struct {
		name    string
		stamped string
		info    *debug.BuildInfo
		want    string
	}{
		{"stamped wins", "v1.2.3", vcs("v0.0.1"), "v1.2.3"},
		{"stamped without build info", "v1.2.3", nil, "v1.2.3"},
		{"no build info", "", nil, "(devel)"},
		{"module version", "", vcs("v0.4.0"), "v0.4.0"},
		{"pseudo-version", "", vcs("v0.0.0-20261125173000-0123456789ab+dirty"), "v0.0.0-20261125173000-0123456789ab+dirty"},
		{"revision", "", vcs("(devel)", "vcs.revision", "0123456789abcdef0123", "vcs.modified", "false"), "devel-0123456789ab"},
		{"dirty revision", "", vcs("", "vcs.revision", "0123456789abcdef0123", "vcs.modified", "true"), "devel-0123456789ab+dirty"},
		{"short revision", "", vcs("(devel)", "vcs.revision", "abc"), "devel-abc"},
		{"nothing known", "", vcs("(devel)"), "(devel)"},
	} {
		if got := versionOf(tc.stamped, tc.info); got != tc.want {
			t.Errorf("%s: versionOf(%q, …) = %q, want %q", tc.name, tc.stamped, got, tc.want)
		}
	}
}
