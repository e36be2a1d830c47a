//go:build unix && (acpfs_portable || !(linux || freebsd))

package proxy

import "syscall"

// dieWithProxy does nothing where the system has no Pdeathsig (macOS), or
// under the acpfs_portable tag: should the proxy die without stopping the
// agent, the agent sees its standard input end, which tells an ACP agent
// to exit.
func dieWithProxy(*syscall.SysProcAttr) {}
