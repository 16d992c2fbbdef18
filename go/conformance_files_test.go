package hrwhash_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// readConformance decodes the file at path, below conformance/, into v; the tests read the
// shared vectors, never copies of them.
func readConformance(t testing.TB, v any, path ...string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(append([]string{"..", "conformance"}, path...)...))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatal(err)
	}
}
