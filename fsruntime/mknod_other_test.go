//go:build !linux

package fsruntime_test

import "errors"

// mkNullDevice is not tried here: device numbers differ between systems.
func mkNullDevice(string) error { return errors.ErrUnsupported }
