package capabilities

import "fmt"

// A Policy says where file operations may go. The zero value is PolicyAuto.
type Policy int

const (
	// PolicyAuto uses the editor for each method it advertised, else disk.
	PolicyAuto Policy = iota
	// PolicyEditor uses only the editor; a method it did not advertise fails.
	PolicyEditor
	// PolicyDisk uses only the local disk.
	PolicyDisk
)

var policyNames = [...]string{PolicyAuto: "auto", PolicyEditor: "editor", PolicyDisk: "disk"}

// ParsePolicy returns the policy named s: "auto", "editor" or "disk".
func ParsePolicy(s string) (Policy, error) {
	for p, name := range policyNames {
		if s == name {
			return Policy(p), nil
		}
	}
	return 0, fmt.Errorf("invalid policy %q: want auto, editor or disk", s)
}

// String returns the policy's name as ParsePolicy accepts it.
func (p Policy) String() string {
	if p >= 0 && int(p) < len(policyNames) {
		return policyNames[p]
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}

// MarshalText returns the policy's name, so a Policy works with flag.TextVar.
func (p Policy) MarshalText() ([]byte, error) {
	if p < 0 || int(p) >= len(policyNames) {
		return nil, fmt.Errorf("invalid policy %d", int(p))
	}
	return []byte(p.String()), nil
}

// UnmarshalText sets p as ParsePolicy does.
func (p *Policy) UnmarshalText(b []byte) error {
	q, err := ParsePolicy(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// An Operation is a file operation of an MCP tool call.
type Operation int

const (
	// OpRead reads a text file (read_text_file; ACP fs/read_text_file).
	OpRead Operation = iota
	// OpWrite writes a text file (write_text_file; ACP fs/write_text_file).
	OpWrite
)

// String returns the name of the MCP tool that performs op.
func (op Operation) String() string {
	switch op {
	case OpRead:
		return "read_text_file"
	case OpWrite:
		return "write_text_file"
	}
	return fmt.Sprintf("Operation(%d)", int(op))
}

// A Route is where one operation goes.
type Route int

const (
	// RouteDisk sends the operation to the local disk.
	RouteDisk Route = iota
	// RouteEditor sends the operation to the editor's fs/* method.
	RouteEditor
	// RouteNone sends the operation nowhere: the policy allows only the
	// editor, and the editor did not advertise the method. The operation
	// must fail without calling the editor.
	RouteNone
)

// String returns "disk", "editor" or "none".
func (r Route) String() string {
	switch r {
	case RouteDisk:
		return "disk"
	case RouteEditor:
		return "editor"
	case RouteNone:
		return "none"
	}
	return fmt.Sprintf("Route(%d)", int(r))
}

// Decide returns where op goes under policy p, given what the client
// advertised. It returns RouteEditor only if c advertised the fs method for
// op, and RouteNone for an unknown policy.
func Decide(c Client, p Policy, op Operation) Route {
	advertised := c.Advertises(op)
	switch p {
	case PolicyAuto:
		if advertised {
			return RouteEditor
		}
		return RouteDisk
	case PolicyEditor:
		if advertised {
			return RouteEditor
		}
		return RouteNone
	case PolicyDisk:
		return RouteDisk
	}
	return RouteNone
}
