//go:build linux && race

package realagents

func init() { raceEnabled = true }
