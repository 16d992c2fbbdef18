package profile

import (
	"crypto/md5"
	"encoding/binary"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// continuum is the sorted ring of 32-bit points of the ketama-style incumbents.
type continuum struct {
	values []uint32
	owners []uint32
}

type point struct{ value, owner uint32 }

// fromPoints sorts by value; equal values keep the order they were pushed in (the incumbents'
// sorts, PROFILES.md).
func fromPoints(points []point) *continuum {
	sort.SliceStable(points, func(a, b int) bool { return points[a].value < points[b].value })
	c := &continuum{values: make([]uint32, len(points)), owners: make([]uint32, len(points))}
	for i, p := range points {
		c.values[i], c.owners[i] = p.value, p.owner
	}
	return c
}

func (c *continuum) owner(i int) int { return int(c.owners[i]) }

// keyValue is the first little-endian word of the MD5 of key.
func keyValue(key string) uint32 {
	d := md5.Sum([]byte(key))
	return binary.LittleEndian.Uint32(d[:4])
}

func pushWords(points []point, name string, owner int) []point {
	d := md5.Sum([]byte(name))
	for j := 0; j < 4; j++ {
		points = append(points, point{binary.LittleEndian.Uint32(d[4*j:]), uint32(owner)})
	}
	return points
}

const (
	defaultPort = 11211
	maxHostLen  = 1024
)

// hostPort splits host:port: the port is the decimal digits after the last ':' when they are a
// port number; port 0 or no port is the default 11211, as in memcached_server_add. written is the
// port as the id writes it, "" when it has none.
func hostPort(id string) (host string, port int, written string) {
	if colon := strings.LastIndexByte(id, ':'); colon >= 0 {
		digits := id[colon+1:]
		ok := digits != "" && len(digits) <= 5
		for i := 0; ok && i < len(digits); i++ {
			ok = digits[i] >= '0' && digits[i] <= '9'
		}
		if ok {
			port, _ := strconv.Atoi(digits)
			if port <= 65535 {
				if port == 0 {
					port = defaultPort
				}
				return id[:colon], port, digits
			}
		}
	}
	return id, defaultPort, ""
}

// ketamaServer is the host and port libmemcached hashes into a server's point strings, or why
// the id names no libmemcached server unambiguously (PROFILES.md 4, "Nodes").
func ketamaServer(id string) (string, int, string) {
	if strings.IndexByte(id, 0) >= 0 {
		return "", 0, "a host name that holds a NUL byte"
	}
	var host, written string
	var port int
	if strings.HasPrefix(id, "[") {
		// [address] or [address]:port: the brackets only delimit an IPv6 address.
		c := strings.IndexByte(id, ']')
		if c < 0 {
			return "", 0, "an id that opens a [ it does not close"
		}
		host, port = id[1:c], defaultPort
		if rest := id[c+1:]; rest != "" {
			if rest[0] != ':' {
				return "", 0, "an id [address] followed by more than :port"
			}
			h, p, w := hostPort(rest)
			if h != "" || w == "" {
				return "", 0, "an id [address]:port whose port is not a port number"
			}
			port, written = p, w
		}
	} else {
		host, port, written = hostPort(id)
		// Without brackets 2001:db8::0 reads as host 2001:db8: with port 0 and as the address on
		// the default port, whose point strings differ (so do 11211 and a leading zero).
		if written != "" && strings.IndexByte(host, ':') >= 0 && (port == defaultPort || written[0] == '0') {
			return "", 0, "an IPv6 address without brackets whose last group reads as port 0 or " +
				"11211 or has a leading zero (write [address] or [address]:port)"
		}
	}
	if host == "" || len(host) > maxHostLen {
		return "", 0, "a host name that is empty or longer than 1024 bytes"
	}
	if host[0] == '/' {
		// A UNIX socket: memcached_server_add_unix_socket_with_weight keeps port 0,
		// memcached_server_add_with_weight sets 11211.
		if written == "" {
			return "", 0, "a UNIX socket path without a port (write path:0 for " +
				"memcached_server_add_unix_socket, path:11211 for memcached_server_add)"
		}
		if strings.Trim(written, "0") == "" {
			return host, 0, ""
		}
	}
	return host, port, ""
}

// ketamaPoints is libmemcached's update_continuum in single precision.
func ketamaPoints(weight uint32, total uint64, servers int) uint32 {
	pct := float32(weight) / float32(total)
	perDigest := pct*float32(160)/float32(4)*float32(servers) + float32(0.0000000001)
	return uint32(perDigest) * 4
}

func ketamaContinuum(nodes []Node, weights []uint32) *continuum {
	var total uint64
	for _, w := range weights {
		total += uint64(w)
	}
	var points []point
	for i, n := range nodes {
		host, port, _ := ketamaServer(n.ID)
		prefix := host
		if port != defaultPort {
			prefix += ":" + strconv.Itoa(port)
		}
		for p := uint32(0); p < ketamaPoints(weights[i], total, len(nodes))/4; p++ {
			points = pushWords(points, prefix+"-"+strconv.FormatUint(uint64(p), 10), i)
		}
	}
	return fromPoints(points)
}

// ketamaFind is libmemcached dispatch_host: the first point at or above hash, wrapping.
func ketamaFind(values []uint32, hash uint32) int {
	i := sort.Search(len(values), func(i int) bool { return values[i] >= hash })
	if i == len(values) {
		return 0
	}
	return i
}

// lossyUTF8 is the text JavaScript (and Rust's from_utf8_lossy) makes of bytes: each maximal
// ill-formed subpart becomes one U+FFFD (Unicode 3.9, "U+FFFD Substitution of Maximal
// Subparts"). strings.ToValidUTF8 would merge a run of them into one.
func lossyUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
			s = s[maximalSubpart(s):]
			continue
		}
		b.WriteString(s[:n])
		s = s[n:]
	}
	return b.String()
}

// maximalSubpart is the length of the ill-formed sequence at the start of s: the lead byte and
// the continuation bytes that could still have begun a well-formed sequence (Table 3-7).
func maximalSubpart(s string) int {
	lo, hi := byte(0x80), byte(0xbf)
	var need int
	switch b := s[0]; {
	case b >= 0xc2 && b <= 0xdf:
		need = 1
	case b == 0xe0:
		need, lo = 2, 0xa0
	case b == 0xed:
		need, hi = 2, 0x9f
	case b >= 0xe1 && b <= 0xef:
		need = 2
	case b == 0xf0:
		need, lo = 3, 0x90
	case b == 0xf4:
		need, hi = 3, 0x8f
	case b >= 0xf1 && b <= 0xf3:
		need = 3
	default:
		return 1
	}
	i := 1
	for ; i <= need && i < len(s); i++ {
		if c := s[i]; (i == 1 && (c < lo || c > hi)) || (i > 1 && (c < 0x80 || c > 0xbf)) {
			break
		}
	}
	return i
}

func hashringContinuum(nodes []Node, weights []uint32) *continuum {
	var total float64
	for _, w := range weights {
		total += float64(w)
	}
	var points []point
	for i, n := range nodes {
		id := lossyUTF8(n.ID)
		digests := math.Floor(float64(weights[i]) / total * 40 * float64(len(nodes)))
		for d := 0; d < int(digests); d++ {
			points = pushWords(points, id+"-"+strconv.Itoa(d), i)
		}
	}
	return fromPoints(points)
}

// hashringFind is hashring's find(), transcribed: exactly a lower bound, the first
// point at or above hash, wrapping to 0 past the last (PROFILES.md 5).
func hashringFind(values []uint32, hash uint32) int {
	size := len(values)
	low, high := 0, size
	for {
		mid := (low + high) >> 1
		if mid == size {
			return 0
		}
		middle := values[mid]
		var prev uint32
		if mid > 0 {
			prev = values[mid-1]
		}
		if hash <= middle && hash > prev {
			return mid
		}
		if middle < hash {
			low = mid + 1
		} else {
			high = mid - 1
		}
		if low > high {
			return 0
		}
	}
}
