package bridge

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/windows"
)

// checkPrivateDir fails the test unless dir has the access list that
// ownerOnly gives it: protected from its parent's entries (P), with one
// entry, inherited by the files and directories in dir (OICI), that allows
// this user full access (FA), and so no one else any. The mode Windows
// reports says nothing of this. Where the system does not keep the access
// lists it is given (privateDirUncheckable), it only says so.
func checkPrivateDir(t *testing.T, dir string) {
	t.Helper()
	if why := privateDirUncheckable(); why != "" {
		t.Logf("the access list of %s is not checked: %s", dir, why)
		return
	}
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		t.Fatal(err)
	}
	sddl, err := daclString(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := "(A;OICI;FA;;;" + user.User.Sid.String() + ")"
	if flags, entries, ok := strings.Cut(strings.TrimPrefix(sddl, "D:"), "("); !strings.HasPrefix(sddl, "D:") || !ok || !strings.Contains(flags, "P") || "("+entries != want {
		t.Errorf("%s: access list %s, want D:P%s: full access for this user alone, inherited, protected from the parent's entries", dir, sddl, want)
	}
}

// daclString returns the access list of the file at path in SDDL: "D:",
// its flags (P for protected, and AI where Windows marks it
// auto-inherited), then its entries.
func daclString(path string) (string, error) {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return sd.String(), nil
}

// privateDirUncheckable says why the access list of the relay socket's
// directory cannot be checked here, or is "" where it can: found once, by
// giving a new directory a protected access list of two entries and
// reading it back. Wine reports the access list set, and keeps the one it
// makes up from the directory's Unix mode.
var privateDirUncheckable = sync.OnceValue(func() string {
	if err := aclKept(); err != nil {
		return "this system does not keep the access lists it is given: " + err.Error()
	}
	return ""
})

func aclKept() error {
	dir, err := os.MkdirTemp("", "acpfs-acl-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return err
	}
	entries := "(A;OICI;FA;;;" + user.User.Sid.String() + ")(A;OICI;FR;;;SY)"
	sd, err := windows.SecurityDescriptorFromString("D:P" + entries)
	if err != nil {
		return err
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return err
	}
	if err := windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil); err != nil {
		return err
	}
	got, err := daclString(dir)
	if err != nil {
		return err
	}
	if flags, rest, _ := strings.Cut(strings.TrimPrefix(got, "D:"), "("); !strings.Contains(flags, "P") || "("+rest != entries {
		return errors.New("the access list D:P" + entries + " of a directory reads back as " + got)
	}
	return nil
}
