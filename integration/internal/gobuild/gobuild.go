// Package gobuild builds the binaries that the black-box tests run, with
// the race detector and the build tags of the test binary that asks.
package gobuild

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// Build builds pkgs into dir, with -race if race, and with the -tags this
// test binary was built with (so acpfs_portable reaches the binaries).
// The go command's output goes to standard error. Where there is no go
// command, as under Wine, $MCP_ACPFS_PREBUILT names a directory that holds
// the binaries built beforehand, and they are copied instead.
func Build(dir string, race bool, pkgs ...string) error {
	if prebuilt := os.Getenv("MCP_ACPFS_PREBUILT"); prebuilt != "" {
		return copyBuilt(prebuilt, dir, pkgs)
	}
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	if race {
		args = append(args, "-race")
	}
	if tags := Tags(); tags != "" {
		args = append(args, "-tags", tags)
	}
	args = append(args, pkgs...)
	build := exec.Command(goTool(), args...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// Tags returns the -tags this test binary was built with.
func Tags() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-tags" {
				return s.Value
			}
		}
	}
	return ""
}

// goTool returns the go command that runs the tests.
func goTool() string {
	if goroot := os.Getenv("GOROOT"); goroot != "" {
		p := filepath.Join(goroot, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "go"
}

// copyBuilt copies the binaries of pkgs, as go build names them, from the
// directory from to the directory to.
func copyBuilt(from, to string, pkgs []string) error {
	for _, pkg := range pkgs {
		name := path.Base(pkg)
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		if err := copyFile(filepath.Join(from, name), filepath.Join(to, name)); err != nil {
			return fmt.Errorf("MCP_ACPFS_PREBUILT: %w", err)
		}
	}
	return nil
}

// copyFile copies the executable file src to the new file dst.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
