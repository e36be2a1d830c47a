//go:build unix

package proxy

import (
	"io"
	"testing"
	"time"
)

// TestAgentStopKillsItsGroup: stop leaves no process of the agent's group,
// whether the agent ignores the end of its input and SIGTERM, or exits at
// once leaving a child. Each child holds the agent's stdout, so the pipe
// reaches its end only once every process of the group is gone (a zombie
// that no one has reaped yet holds nothing).
func TestAgentStopKillsItsGroup(t *testing.T) {
	for name, script := range map[string]string{
		"deaf agent":     `trap '' TERM; sleep 600 & wait`,
		"orphaned child": `sleep 600 &`,
	} {
		t.Run(name, func(t *testing.T) {
			a, err := startAgent([]string{"/bin/sh", "-c", script}, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer a.stdout.Close()
			a.stop(50 * time.Millisecond)
			ended := make(chan error, 1)
			go func() {
				_, err := io.Copy(io.Discard, a.stdout)
				ended <- err
			}()
			select {
			case err := <-ended:
				if err != nil {
					t.Errorf("reading the agent's stdout: %v", err)
				}
			case <-time.After(10 * time.Second):
				a.closeStdout()
				t.Fatal("a process of the agent's group still holds its stdout after stop")
			}
		})
	}
}
