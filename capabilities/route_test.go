package capabilities

import (
	"flag"
	"strings"
	"testing"
)

func TestDecide(t *testing.T) {
	none := Client{}
	readOnly := Client{FS: FS{ReadTextFile: true}}
	writeOnly := Client{FS: FS{WriteTextFile: true}}
	both := Client{FS: FS{ReadTextFile: true, WriteTextFile: true}, Terminal: true}
	terminalOnly := Client{Terminal: true}

	tests := []struct {
		client string
		c      Client
		p      Policy
		op     Operation
		want   Route
	}{
		{"none", none, PolicyAuto, OpRead, RouteDisk},
		{"none", none, PolicyAuto, OpWrite, RouteDisk},
		{"read", readOnly, PolicyAuto, OpRead, RouteEditor},
		{"read", readOnly, PolicyAuto, OpWrite, RouteDisk},
		{"write", writeOnly, PolicyAuto, OpRead, RouteDisk},
		{"write", writeOnly, PolicyAuto, OpWrite, RouteEditor},
		{"both", both, PolicyAuto, OpRead, RouteEditor},
		{"both", both, PolicyAuto, OpWrite, RouteEditor},

		{"none", none, PolicyEditor, OpRead, RouteNone},
		{"none", none, PolicyEditor, OpWrite, RouteNone},
		{"read", readOnly, PolicyEditor, OpRead, RouteEditor},
		{"read", readOnly, PolicyEditor, OpWrite, RouteNone},
		{"write", writeOnly, PolicyEditor, OpRead, RouteNone},
		{"write", writeOnly, PolicyEditor, OpWrite, RouteEditor},
		{"both", both, PolicyEditor, OpRead, RouteEditor},
		{"both", both, PolicyEditor, OpWrite, RouteEditor},

		{"none", none, PolicyDisk, OpRead, RouteDisk},
		{"none", none, PolicyDisk, OpWrite, RouteDisk},
		{"read", readOnly, PolicyDisk, OpRead, RouteDisk},
		{"read", readOnly, PolicyDisk, OpWrite, RouteDisk},
		{"write", writeOnly, PolicyDisk, OpRead, RouteDisk},
		{"write", writeOnly, PolicyDisk, OpWrite, RouteDisk},
		{"both", both, PolicyDisk, OpRead, RouteDisk},
		{"both", both, PolicyDisk, OpWrite, RouteDisk},

		// terminal is not an fs capability.
		{"terminal", terminalOnly, PolicyAuto, OpRead, RouteDisk},
		{"terminal", terminalOnly, PolicyEditor, OpWrite, RouteNone},

		// Values outside the enums never reach the editor.
		{"both", both, Policy(-1), OpRead, RouteNone},
		{"both", both, Policy(3), OpWrite, RouteNone},
		{"both", both, PolicyAuto, Operation(2), RouteDisk},
		{"both", both, PolicyEditor, Operation(-1), RouteNone},
	}
	for _, tt := range tests {
		if got := Decide(tt.c, tt.p, tt.op); got != tt.want {
			t.Errorf("Decide(%s, %v, %v) = %v, want %v", tt.client, tt.p, tt.op, got, tt.want)
		}
	}
}

// Decide over the clients of testdata: Zed gets the editor, the SDK example
// too, a read-only client only for reads, and garbage nothing.
func TestDecideForRealClients(t *testing.T) {
	tests := []struct {
		file        string
		read, write Route // under PolicyAuto
	}{
		{"zed.json", RouteEditor, RouteEditor},
		{"zed-2025.json", RouteEditor, RouteEditor},
		{"ts-sdk.json", RouteEditor, RouteEditor},
		{"read-only.json", RouteEditor, RouteDisk},
		{"no-fs.json", RouteDisk, RouteDisk},
		{"garbage.json", RouteDisk, RouteDisk},
	}
	for _, tt := range tests {
		req, err := ParseInitializeRequest(readMessage(t, "client/"+tt.file).Params)
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if got := Decide(req.Client, PolicyAuto, OpRead); got != tt.read {
			t.Errorf("%s: read goes to %v, want %v", tt.file, got, tt.read)
		}
		if got := Decide(req.Client, PolicyAuto, OpWrite); got != tt.write {
			t.Errorf("%s: write goes to %v, want %v", tt.file, got, tt.write)
		}
	}
}

func TestParsePolicy(t *testing.T) {
	for _, p := range []Policy{PolicyAuto, PolicyEditor, PolicyDisk} {
		got, err := ParsePolicy(p.String())
		if err != nil || got != p {
			t.Errorf("ParsePolicy(%q) = %v, %v; want %v", p.String(), got, err, p)
		}
	}
	for _, s := range []string{"", "Auto", "EDITOR", " disk", "both", "none"} {
		_, err := ParsePolicy(s)
		if err == nil {
			t.Errorf("ParsePolicy(%q): no error", s)
			continue
		}
		msg := err.Error()
		for _, want := range []string{`"` + s + `"`, "auto", "editor", "disk"} {
			if !strings.Contains(msg, want) {
				t.Errorf("ParsePolicy(%q) error %q does not mention %s", s, msg, want)
			}
		}
	}
}

func TestPolicyIsAFlag(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	var p Policy
	fs.TextVar(&p, "fs", PolicyAuto, "where file operations go: auto, editor or disk")
	if err := fs.Parse([]string{"-fs=editor"}); err != nil {
		t.Fatal(err)
	}
	if p != PolicyEditor {
		t.Errorf("-fs=editor gave %v", p)
	}
	fs.SetOutput(new(strings.Builder))
	if err := fs.Parse([]string{"-fs=cloud"}); err == nil {
		t.Error("-fs=cloud: no error")
	}
	if _, err := Policy(7).MarshalText(); err == nil {
		t.Error("Policy(7).MarshalText: no error")
	}
}

func TestStrings(t *testing.T) {
	tests := []struct {
		s    interface{ String() string }
		want string
	}{
		{PolicyAuto, "auto"},
		{PolicyEditor, "editor"},
		{PolicyDisk, "disk"},
		{Policy(7), "Policy(7)"},
		{Policy(-1), "Policy(-1)"},
		{OpRead, "read_text_file"},
		{OpWrite, "write_text_file"},
		{Operation(2), "Operation(2)"},
		{RouteDisk, "disk"},
		{RouteEditor, "editor"},
		{RouteNone, "none"},
		{Route(3), "Route(3)"},
	}
	for _, tt := range tests {
		if got := tt.s.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
