package mcpfs_test

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// Of many parallel create_directory calls on one new nested path, exactly
// one reports that it created the directory.
func TestCreateDirectoryParallelCreatesOnce(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	c := mcpfstest.Connect(t, f.Srv, mcpfstest.Eras[0].Version)
	const calls = 50
	var wg sync.WaitGroup
	created := make([]bool, calls)
	for i := range calls {
		wg.Go(func() {
			res := mcpfstest.Call(t, c, mcpfs.CreateDirectory, map[string]any{"path": "new/deeply/nested"})
			if res.IsError {
				t.Errorf("call %d: %s", i, mcpfstest.Text(t, res))
				return
			}
			b, _ := json.Marshal(res.StructuredContent)
			var out struct {
				Created *bool `json:"created"`
			}
			if err := json.Unmarshal(b, &out); err != nil || out.Created == nil {
				t.Errorf("call %d: %s", i, b)
				return
			}
			created[i] = *out.Created
		})
	}
	wg.Wait()
	n := 0
	for _, c := range created {
		if c {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d of %d calls report created: true, want exactly 1", n, calls)
	}
}
