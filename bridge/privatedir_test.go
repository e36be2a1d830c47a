package bridge

import (
	"os"
	"testing"
)

// CheckPrivateDir fails the test unless dir is private to this user, as
// privateDir makes the relay socket's directory (checkPrivateDir).
var CheckPrivateDir = checkPrivateDir

// TestPrivateDir: the relay socket's directory is this user's alone, on
// every system, whether or not it has unix sockets for the relay.
func TestPrivateDir(t *testing.T) {
	if why := privateDirUncheckable(); why != "" {
		t.Skip(why)
	}
	dir, err := privateDir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	checkPrivateDir(t, dir)
}
