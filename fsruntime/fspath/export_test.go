package fspath

// The path syntax of each OS, for the external tests: the pure functions
// run on any OS.
type Flavor = flavor

const (
	UnixPaths    = unixPaths
	DarwinPaths  = darwinPaths
	WindowsPaths = windowsPaths
	HostPaths    = hostPaths
)

func AbsIn(f Flavor, workDir, p string) (string, error)     { return f.abs(workDir, p) }
func AbsFileIn(f Flavor, workDir, p string) (string, error) { return f.absFile(workDir, p) }
func NamesDirIn(f Flavor, p string) bool                    { return f.namesDir(p) }
func WithinIn(f Flavor, dir, p string) (string, bool)       { return f.within(dir, p) }
func ExpandHomeIn(f Flavor, home, p string) string          { return f.expandHome(home, p) }
func CheckIn(f Flavor, p string) error                      { return f.checkPath(p) }
func SpellIn(f Flavor, dir, p string) (string, bool)        { return f.spell(dir, p) }
func FileURIIn(f Flavor, p string) string                   { return f.fileURI(p) }
