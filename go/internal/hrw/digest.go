package hrw

import (
	"encoding/binary"
	"math/bits"
)

// SeedLen is the length of a seed in bytes.
const SeedLen = 16

// DefaultSeed is the public default seed of SPEC.md section 1.
var DefaultSeed = [SeedLen]byte{'h', 'r', 'w', 'h', 'a', 's', 'h', '-', 'v', '1', '-', 's', 'e', 'e', 'd', '.'}

const (
	keyDomain  = "hrw-v1:key"
	nodeDomain = "hrw-v1:node"
)

// KeyHasher computes key digests under one seed. The framed key starts with "hrw-v1:k", then
// "ey" and the low six bytes of the key's length: both words depend on the seed and the length
// alone, so for the common lengths the state after them is computed once, here, and a lookup
// starts two SipHash rounds in instead of running them per key.
type KeyHasher struct {
	pre sipState
	// byLen[n] is the state after the first two words of a key of n bytes.
	byLen *[shortKeys]sipState
}

// shortKeys bounds the key lengths whose state after two words is kept: 32 states, 1 KiB per
// seed (the default seed's are shared by every placement that uses it).
const shortKeys = 32

// defaultStates are the prepared states of DefaultSeed.
var defaultStates = keyStates(prefixState(DefaultSeed))

func prefixState(seed [SeedLen]byte) sipState {
	s := newSipState(binary.LittleEndian.Uint64(seed[:8]), binary.LittleEndian.Uint64(seed[8:]))
	s.compress13(le64s(keyDomain))
	return s
}

func keyStates(pre sipState) *[shortKeys]sipState {
	var t [shortKeys]sipState
	for n := range t {
		t[n] = pre
		t[n].compress13(uint64('e') | uint64('y')<<8 | uint64(n)<<16)
	}
	return &t
}

// NewKeyHasher prepares key digests under seed.
func NewKeyHasher(seed [SeedLen]byte) KeyHasher {
	pre := prefixState(seed)
	if seed == DefaultSeed {
		return KeyHasher{pre: pre, byLen: defaultStates}
	}
	return KeyHasher{pre: pre, byLen: keyStates(pre)}
}

// Digest is SipHash13(k0, k1, "hrw-v1:key" || u64le(len(key)) || key) (SPEC.md section 2).
// The rounds are written out: a round as a function is too large for the inliner, and the
// state would then live in memory.
func (h *KeyHasher) Digest(key string) uint64 {
	var v0, v1, v2, v3 uint64
	n := uint64(len(key))
	var m uint64
	if n < shortKeys {
		s := &h.byLen[n]
		v0, v1, v2, v3 = s.v0, s.v1, s.v2, s.v3
	} else {
		v0, v1, v2, v3 = h.pre.v0, h.pre.v1, h.pre.v2, h.pre.v3
		// Word 1: "ey" and the low six bytes of the length; word 2 starts with its top two bytes.
		m = uint64('e') | uint64('y')<<8 | n<<16
		v3 ^= m
		v0 += v1
		v1 = bits.RotateLeft64(v1, 13) ^ v0
		v0 = bits.RotateLeft64(v0, 32)
		v2 += v3
		v3 = bits.RotateLeft64(v3, 16) ^ v2
		v0 += v3
		v3 = bits.RotateLeft64(v3, 21) ^ v0
		v2 += v1
		v1 = bits.RotateLeft64(v1, 17) ^ v2
		v2 = bits.RotateLeft64(v2, 32)
		v0 ^= m
	}
	if len(key) < 6 {
		m = n>>48 | tail(key, 0)<<16 | (n+18)<<56
	} else {
		// Word 2: the top two length bytes and the first six of the key, from one 8-byte read
		// where the key has 8 bytes.
		if len(key) >= 8 {
			m = n>>48 | le64s(key)<<16
		} else {
			m = n>>48 | (uint64(key[0])|uint64(key[1])<<8|uint64(key[2])<<16|
				uint64(key[3])<<24|uint64(key[4])<<32|uint64(key[5])<<40)<<16
		}
		v3 ^= m
		v0 += v1
		v1 = bits.RotateLeft64(v1, 13) ^ v0
		v0 = bits.RotateLeft64(v0, 32)
		v2 += v3
		v3 = bits.RotateLeft64(v3, 16) ^ v2
		v0 += v3
		v3 = bits.RotateLeft64(v3, 21) ^ v0
		v2 += v1
		v1 = bits.RotateLeft64(v1, 17) ^ v2
		v2 = bits.RotateLeft64(v2, 32)
		v0 ^= m
		rest := key[6:]
		for len(rest) >= 8 {
			m = le64s(rest)
			v3 ^= m
			v0 += v1
			v1 = bits.RotateLeft64(v1, 13) ^ v0
			v0 = bits.RotateLeft64(v0, 32)
			v2 += v3
			v3 = bits.RotateLeft64(v3, 16) ^ v2
			v0 += v3
			v3 = bits.RotateLeft64(v3, 21) ^ v0
			v2 += v1
			v1 = bits.RotateLeft64(v1, 17) ^ v2
			v2 = bits.RotateLeft64(v2, 32)
			v0 ^= m
			rest = rest[8:]
		}
		if len(key) >= 8 {
			// The last len(rest) bytes are the top ones of the key's last 8: one read and a
			// shift, no jump table. Two shifts, each below 64, so that none is by 64 when
			// rest is empty.
			r := uint(len(rest))
			m = le64s(key[len(key)-8:])>>((63-8*r)&63)>>1 | (n+18)<<56
		} else {
			m = tail(rest, len(key)+18)
		}
	}
	v3 ^= m
	v0 += v1
	v1 = bits.RotateLeft64(v1, 13) ^ v0
	v0 = bits.RotateLeft64(v0, 32)
	v2 += v3
	v3 = bits.RotateLeft64(v3, 16) ^ v2
	v0 += v3
	v3 = bits.RotateLeft64(v3, 21) ^ v0
	v2 += v1
	v1 = bits.RotateLeft64(v1, 17) ^ v2
	v2 = bits.RotateLeft64(v2, 32)
	v0 ^= m
	v2 ^= 0xff
	v0 += v1
	v1 = bits.RotateLeft64(v1, 13) ^ v0
	v0 = bits.RotateLeft64(v0, 32)
	v2 += v3
	v3 = bits.RotateLeft64(v3, 16) ^ v2
	v0 += v3
	v3 = bits.RotateLeft64(v3, 21) ^ v0
	v2 += v1
	v1 = bits.RotateLeft64(v1, 17) ^ v2
	v2 = bits.RotateLeft64(v2, 32)
	v0 += v1
	v1 = bits.RotateLeft64(v1, 13) ^ v0
	v0 = bits.RotateLeft64(v0, 32)
	v2 += v3
	v3 = bits.RotateLeft64(v3, 16) ^ v2
	v0 += v3
	v3 = bits.RotateLeft64(v3, 21) ^ v0
	v2 += v1
	v1 = bits.RotateLeft64(v1, 17) ^ v2
	v2 = bits.RotateLeft64(v2, 32)
	v0 += v1
	v1 = bits.RotateLeft64(v1, 13) ^ v0
	v0 = bits.RotateLeft64(v0, 32)
	v2 += v3
	v3 = bits.RotateLeft64(v3, 16) ^ v2
	v0 += v3
	v3 = bits.RotateLeft64(v3, 21) ^ v0
	v2 += v1
	v1 = bits.RotateLeft64(v1, 17) ^ v2
	v2 = bits.RotateLeft64(v2, 32)
	return v0 ^ v1 ^ v2 ^ v3
}

func seedKeys(seed [SeedLen]byte) (uint64, uint64) {
	return binary.LittleEndian.Uint64(seed[:8]), binary.LittleEndian.Uint64(seed[8:])
}

func framed(domain, b string) []byte {
	msg := make([]byte, 0, len(domain)+8+len(b))
	msg = append(msg, domain...)
	msg = binary.LittleEndian.AppendUint64(msg, uint64(len(b)))
	return append(msg, b...)
}

// KeyDigest is the key digest of SPEC.md section 2, without the per-seed preparation.
func KeyDigest(seed [SeedLen]byte, key string) uint64 {
	k0, k1 := seedKeys(seed)
	return SipHash(1, 3, k0, k1, framed(keyDomain, key))
}

// NodeDigest is SipHash13(k0, k1, "hrw-v1:node" || u64le(len(id)) || id) (SPEC.md section 2).
func NodeDigest(seed [SeedLen]byte, id string) uint64 {
	k0, k1 := seedKeys(seed)
	// Most ids fit a buffer on the stack: building a placement of a million nodes then leaves
	// no garbage of one message per node.
	var buf [160]byte
	msg := append(buf[:0], nodeDomain...)
	msg = binary.LittleEndian.AppendUint64(msg, uint64(len(id)))
	return SipHash(1, 3, k0, k1, append(msg, id...))
}

// Mix is the odd multiplier of the score (SPEC.md section 3).
const Mix = 0xD6E8FEB86659FD93

// Score is the score of a key digest for a node digest (SPEC.md section 3).
func Score(keyDigest, nodeDigest uint64) uint64 {
	x := keyDigest ^ nodeDigest
	return (x ^ x>>32) * Mix
}
