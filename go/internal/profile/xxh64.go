package profile

import "math/bits"

// XXH64 with seed 0 (the xxHash specification), the hash go-redis takes from cespare/xxhash;
// written out because the hrwhash module has no dependencies.
const (
	prime1 uint64 = 11400714785074694791
	prime2 uint64 = 14029467366897019727
	prime3 uint64 = 1609587929392839161
	prime4 uint64 = 9650029242287828579
	prime5 uint64 = 2870177450012600261
)

func round(acc, input uint64) uint64 {
	acc += input * prime2
	return bits.RotateLeft64(acc, 31) * prime1
}

func mergeRound(acc, val uint64) uint64 {
	acc ^= round(0, val)
	return acc*prime1 + prime4
}

func xxh64(s string) uint64 {
	n := len(s)
	var h uint64
	if n >= 32 {
		// Wrapping sums: Go constants may not overflow.
		v1, v2, v3, v4 := prime1, prime2, uint64(0), uint64(0)
		v1 += prime2
		v4 -= prime1
		for len(s) >= 32 {
			v1 = round(v1, le64(s[0:8]))
			v2 = round(v2, le64(s[8:16]))
			v3 = round(v3, le64(s[16:24]))
			v4 = round(v4, le64(s[24:32]))
			s = s[32:]
		}
		h = bits.RotateLeft64(v1, 1) + bits.RotateLeft64(v2, 7) + bits.RotateLeft64(v3, 12) + bits.RotateLeft64(v4, 18)
		h = mergeRound(h, v1)
		h = mergeRound(h, v2)
		h = mergeRound(h, v3)
		h = mergeRound(h, v4)
	} else {
		h = prime5
	}
	h += uint64(n)
	for ; len(s) >= 8; s = s[8:] {
		h ^= round(0, le64(s))
		h = bits.RotateLeft64(h, 27)*prime1 + prime4
	}
	if len(s) >= 4 {
		h ^= uint64(le32(s)) * prime1
		h = bits.RotateLeft64(h, 23)*prime2 + prime3
		s = s[4:]
	}
	for ; len(s) > 0; s = s[1:] {
		h ^= uint64(s[0]) * prime5
		h = bits.RotateLeft64(h, 11) * prime1
	}
	h ^= h >> 33
	h *= prime2
	h ^= h >> 29
	h *= prime3
	h ^= h >> 32
	return h
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func le32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}
