// Command viewload loads a view file with hrwhash.ViewFromFile (or ViewFromJSON of the file's
// bytes with -json) and prints its fingerprint, for the peak-memory table of bench/view-memory.sh.
// Build it with -tags hrwhash_cgo for the libhrwhash build.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	hrwhash "github.com/hrwhash/hrwhash/go"
)

func main() {
	fromJSON := flag.Bool("json", false, "read the file, then ViewFromJSON")
	live := flag.Bool("live", false, "print the live heap after loading (the view itself)")
	memProfile := flag.String("memprofile", "", "write the heap profile (every allocation of the load) here")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: viewload [-json] VIEW")
		os.Exit(2)
	}
	var v *hrwhash.View
	var err error
	if *fromJSON {
		var doc []byte
		if doc, err = os.ReadFile(flag.Arg(0)); err == nil {
			v, err = hrwhash.ViewFromJSON(doc)
		}
	} else {
		v, err = hrwhash.ViewFromFile(flag.Arg(0))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%x\n", v.Fingerprint())
	if *live {
		// What stays: the view and its placement, after the garbage of loading is collected.
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		fmt.Fprintf(os.Stderr, "live heap after loading: %d MB\n", m.HeapAlloc>>20)
		runtime.KeepAlive(v)
	}
	if *memProfile != "" {
		f, err := os.Create(*memProfile)
		if err == nil {
			err = pprof.Lookup("allocs").WriteTo(f, 0)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
