package profile

import (
	"strings"
	"unicode/utf8"
)

const (
	c1 uint32 = 0xcc9e2d51
	c2 uint32 = 0x1b873593
)

func mixK1(k uint32) uint32 {
	k *= c1
	k = k<<15 | k>>17
	return k * c2
}

func mixH1(h, k uint32) uint32 {
	h ^= mixK1(k)
	h = h<<13 | h>>19
	return h*5 + 0xe6546b64
}

// murmur3_32 (seed 0) of bytes, one a code point, as pymemcache's pure-Python murmur reads them.
func murmur3(b []byte) uint32 {
	var h uint32
	n := len(b)
	i := 0
	for ; i+4 <= n; i += 4 {
		h = mixH1(h, uint32(b[i])|uint32(b[i+1])<<8|uint32(b[i+2])<<16|uint32(b[i+3])<<24)
	}
	var k uint32
	switch n - i {
	case 3:
		k |= uint32(b[i+2]) << 16
		fallthrough
	case 2:
		k |= uint32(b[i+1]) << 8
		fallthrough
	case 1:
		k |= uint32(b[i])
		h ^= mixK1(k)
	}
	h ^= uint32(n)
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	return h ^ h>>16
}

// pythonText is the text pymemcache formats for bytes: the bytes when they are UTF-8 (a str),
// Python's repr() otherwise (a bytes object, CPython bytes_repr).
func pythonText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.WriteByte('b')
	b.WriteByte(quote)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == quote:
			b.WriteByte('\\')
			b.WriteByte(c)
		case c >= 0x20 && c <= 0x7e:
			b.WriteByte(c)
		default:
			b.WriteString(`\x`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	b.WriteByte(quote)
	return b.String()
}

// lowBytes appends the low byte of each code point of text.
func lowBytes(dst []byte, text string) []byte {
	for _, r := range text {
		dst = append(dst, byte(r))
	}
	return dst
}

type pymemcache struct {
	prefixes [][]byte // low bytes of "{node}-"
	texts    []string // each node's text; a tie goes to the greatest
}

func newPymemcache(nodes []Node) *pymemcache {
	p := &pymemcache{}
	for _, n := range nodes {
		t := pythonText(n.ID)
		p.prefixes = append(p.prefixes, append(lowBytes(nil, t), '-'))
		p.texts = append(p.texts, t)
	}
	return p
}

func (p *pymemcache) owner(key string) int {
	k := lowBytes(nil, pythonText(key))
	buf := make([]byte, 0, 64+len(k))
	best, bestScore := 0, uint32(0)
	for i, prefix := range p.prefixes {
		buf = append(append(buf[:0], prefix...), k...)
		s := murmur3(buf)
		// Every score beats pymemcache's starting -1, so the first node leads; a tie goes to the
		// greatest text (Python compares str by code point, which is UTF-8 byte order).
		if i == 0 || s > bestScore || (s == bestScore && p.texts[i] > p.texts[best]) {
			best, bestScore = i, s
		}
	}
	return best
}
