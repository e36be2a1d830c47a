package runtime

// Abs resolves p for a session whose working directory is workDir: an
// absolute p is cleaned, a relative one is joined to workDir. A NUL byte or
// an empty path is an error wrapping fs.ErrInvalid. Abs does not check roots;
// the FS does.
func Abs(workDir, p string) (string, error) { panic("todo") }
