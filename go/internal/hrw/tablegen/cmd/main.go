// Command cmd writes internal/hrw/tables.go: go run ./internal/hrw/tablegen/cmd > internal/hrw/tables.go
package main

import (
	"fmt"
	"os"

	"github.com/hrwhash/hrwhash/go/internal/hrw/tablegen"
)

func main() {
	src, err := tablegen.Source()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(src)
}
