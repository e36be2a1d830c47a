package fsruntime

// The path syntax of each OS, for the external tests: the pure functions
// run on any OS.
type PathFlavor = pathFlavor

const (
	UnixPaths    = unixPaths
	DarwinPaths  = darwinPaths
	WindowsPaths = windowsPaths
	HostPaths    = hostPaths
)

func AbsIn(f PathFlavor, workDir, p string) (string, error)     { return f.abs(workDir, p) }
func AbsFileIn(f PathFlavor, workDir, p string) (string, error) { return f.absFile(workDir, p) }
func NamesDirIn(f PathFlavor, p string) bool                    { return f.namesDir(p) }
func WithinIn(f PathFlavor, dir, p string) (string, bool)       { return f.within(dir, p) }
func ExpandHomeIn(f PathFlavor, home, p string) string          { return f.expandHome(home, p) }
func CheckPathIn(f PathFlavor, p string) error                  { return f.checkPath(p) }
func SpellIn(f PathFlavor, dir, p string) (string, bool)        { return f.spell(dir, p) }
