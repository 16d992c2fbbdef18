// Package etcdtest starts a real etcd (Debian's etcd-server) for the tests of the etcd follower
// and publisher and of the follower command.
package etcdtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Server is a real etcd (Debian's etcd-server) on loopback ports with its data in a
// temporary directory; Stop and Start keep the data, as a restarted member does.
type Server struct {
	t                    *testing.T
	bin, dir             string
	clientPort, peerPort int
	cmd                  *exec.Cmd
	exited               chan struct{}
}

func FreePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Start starts etcd, stopped at the end of the test. Without the etcd binary the test is
// skipped, except under CI=true, where it fails.
func Start(t *testing.T) *Server {
	t.Helper()
	bin, err := exec.LookPath("etcd")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("etcd (Debian etcd-server) is required under CI: %v", err)
		}
		t.Skipf("etcd not installed (apt-get install etcd-server): %v", err)
	}
	s := &Server{t: t, bin: bin, dir: t.TempDir(), clientPort: FreePort(t), peerPort: FreePort(t)}
	s.Restart()
	t.Cleanup(s.Stop)
	return s
}

// URL is the client URL.
func (s *Server) URL() string { return "http://127.0.0.1:" + strconv.Itoa(s.clientPort) }

// Restart starts the stopped server again on the same ports and data.
func (s *Server) Restart() {
	s.t.Helper()
	client := s.URL()
	peer := "http://127.0.0.1:" + strconv.Itoa(s.peerPort)
	log, err := os.OpenFile(filepath.Join(s.dir, "etcd.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		s.t.Fatal(err)
	}
	s.cmd = exec.Command(s.bin,
		"--name", "viewsync-test", "--data-dir", filepath.Join(s.dir, "data"),
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "viewsync-test="+peer, "--initial-cluster-state", "new")
	s.cmd.Stdout, s.cmd.Stderr = log, log
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("starting etcd: %v", err)
	}
	log.Close()
	s.exited = make(chan struct{})
	go func(cmd *exec.Cmd, exited chan struct{}) { _ = cmd.Wait(); close(exited) }(s.cmd, s.exited)
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Post(client+"/v3/kv/range", "application/json", bytes.NewReader([]byte(`{"key":"AA=="}`)))
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-s.exited:
			raw, _ := os.ReadFile(filepath.Join(s.dir, "etcd.log"))
			s.t.Fatalf("etcd exited:\n%s", raw)
		default:
		}
		if time.Now().After(deadline) {
			raw, _ := os.ReadFile(filepath.Join(s.dir, "etcd.log"))
			s.t.Fatalf("etcd on %s did not answer:\n%s", client, raw)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop stops the server (SIGTERM, then SIGKILL after 10 s); its data stays.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	s.cmd = nil
}

// Post sends one request to the gateway, for what the tests do behind the package's back.
func (s *Server) Post(path string, req any) map[string]any {
	s.t.Helper()
	body, _ := json.Marshal(req)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+path, bytes.NewReader(body))
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != http.StatusOK {
		s.t.Fatalf("%s: %d %v %v", path, res.StatusCode, out, err)
	}
	return out
}

// Put writes value at key behind the publisher's back and returns the revision.
func (s *Server) Put(key string, value []byte) int64 {
	out := s.Post("/v3/kv/put", map[string]any{"key": []byte(key), "value": value})
	rev, _ := strconv.ParseInt(fmt.Sprint(out["header"].(map[string]any)["revision"]), 10, 64)
	return rev
}

// Compact compacts the key space up to rev.
func (s *Server) Compact(rev int64) {
	s.Post("/v3/kv/compaction", map[string]any{"revision": strconv.FormatInt(rev, 10), "physical": true})
}
