package hrwview

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hrwhash/hrwhash/go/internal/hrw"
)

// FixedWeight is SPEC.md 5.1's fixed-point weight, or false for an invalid weight.
var FixedWeight = hrw.FixedWeight

// one is the fixed-point weight 1.
const one = uint64(1) << 32

// SeedFingerprint is SHA-256("hrwhash-view-v1:seed" || seed)[0..8] (VIEW.md 4.1).
func SeedFingerprint(seed [16]byte) [8]byte {
	h := sha256.New()
	h.Write([]byte("hrwhash-view-v1:seed"))
	h.Write(seed[:])
	var out [8]byte
	copy(out[:], h.Sum(nil))
	return out
}

// Weighted is a node with its fixed-point weight.
type Weighted struct {
	Node
	Fixed uint64
}

// Fixed gives every node its fixed-point weight; the weights must be valid.
func Fixed(nodes []Node) []Weighted {
	out := make([]Weighted, len(nodes))
	for i, n := range nodes {
		w, _ := FixedWeight(n.Weight)
		out[i] = Weighted{n, w}
	}
	return out
}

func byID(nodes []Weighted) []Weighted {
	s := append([]Weighted(nil), nodes...)
	sort.Slice(s, func(a, b int) bool { return s[a].ID < s[b].ID })
	return s
}

// Fingerprint is the view fingerprint of VIEW.md 4.2.
func Fingerprint(seedFP [8]byte, nodes []Weighted) [16]byte {
	// The message is hashed as it is made: whole, it would be one more copy of the document.
	h := sha256.New()
	var buf []byte // reused: hashing a string through io.WriteString would copy each one
	u64 := func(n uint64) {
		buf = binary.LittleEndian.AppendUint64(buf[:0], n)
		h.Write(buf)
	}
	str := func(s string) {
		u64(uint64(len(s)))
		buf = append(buf[:0], s...)
		h.Write(buf)
	}
	str(Format)
	str(Algorithm)
	h.Write(seedFP[:])
	u64(uint64(len(nodes)))
	for _, n := range byID(nodes) {
		str(n.ID)
		u64(n.Fixed)
		if n.HasDomain {
			h.Write(append(buf[:0], 1))
			str(n.Domain)
		} else {
			h.Write(append(buf[:0], 0))
		}
	}
	var out [16]byte
	copy(out[:], h.Sum(nil)[:16])
	return out
}

// text writes a JSON string as VIEW.md section 3 escapes it.
func text(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00`)
				b.WriteString(hex.EncodeToString([]byte{byte(r)}))
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// textMember writes "name": <string> for valid UTF-8, else "name_hex": "<hex>".
func textMember(b *strings.Builder, name, value string) {
	if utf8.ValidString(value) {
		b.WriteString(`"` + name + `": `)
		text(b, value)
		return
	}
	b.WriteString(`"` + name + `_hex": "` + hex.EncodeToString([]byte(value)) + `"`)
}

var fiveTo32 = new(big.Int).Exp(big.NewInt(5), big.NewInt(32), nil)

// Decimal is the exact decimal of W / 2^32 (VIEW.md section 3).
func Decimal(w uint64) string {
	s := strconv.FormatUint(w>>32, 10)
	f := w & (one - 1)
	if f == 0 {
		return s
	}
	frac := new(big.Int).Mul(new(big.Int).SetUint64(f), fiveTo32).String()
	frac = strings.Repeat("0", 32-len(frac)) + frac
	return s + "." + strings.TrimRight(frac, "0")
}

// Canonical is the canonical form of VIEW.md section 3. secret says whether the seed is not
// the default one (then seedFP is written).
func Canonical(epoch uint64, secret bool, seedFP [8]byte, nodes []Weighted) []byte {
	var b strings.Builder
	canonicalHead(&b, Format, "algorithm", Algorithm, "", epoch, secret, seedFP)
	b.WriteString("  \"nodes\": [\n")
	sorted := byID(nodes)
	for i, n := range sorted {
		b.WriteString("    {")
		textMember(&b, "id", n.ID)
		if n.Fixed != one {
			b.WriteString(`, "weight": ` + Decimal(n.Fixed))
		}
		if n.HasDomain {
			b.WriteString(", ")
			textMember(&b, "domain", n.Domain)
		}
		b.WriteByte('}')
		if i+1 < len(sorted) {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ]\n}\n")
	return []byte(b.String())
}

// canonicalHead writes the members a canonical view and a canonical slot history begin with:
// the format, the tag (name and value) of what they hold, extra (whole lines), the epoch and the
// seed.
func canonicalHead(b *strings.Builder, format, tag, value, extra string, epoch uint64, secret bool, seedFP [8]byte) {
	b.WriteString("{\n  \"format\": \"" + format + "\",\n  \"" + tag + "\": \"" + value + "\",\n" + extra + "  \"epoch\": \"")
	b.WriteString(strconv.FormatUint(epoch, 10))
	if secret {
		b.WriteString("\",\n  \"seed\": \"secret\",\n  \"seed_fingerprint\": \"" + hex.EncodeToString(seedFP[:]) + "\",\n")
	} else {
		b.WriteString("\",\n  \"seed\": \"default\",\n")
	}
}
