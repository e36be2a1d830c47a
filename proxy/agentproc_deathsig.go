//go:build (linux || freebsd) && !acpfs_portable

package proxy

import "syscall"

// dieWithProxy has the system send the agent SIGKILL when the proxy dies,
// even by SIGKILL (Pdeathsig). What the agent started is not covered: it
// sees its standard input end. The acpfs_portable tag leaves this out, to
// run on Linux what macOS runs.
func dieWithProxy(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
