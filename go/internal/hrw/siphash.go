package hrw

import "math/bits"

// SipHash (Aumasson and Bernstein, 2012), written from the paper: the state is four 64-bit words
// initialised from the key and four constants; every 8-byte little-endian word of the message is
// mixed in with c rounds, the last word carries the message length in its top byte, and d rounds
// finish.

const (
	sipInit0 = 0x736f6d6570736575 // "somepseu"
	sipInit1 = 0x646f72616e646f6d // "dorandom"
	sipInit2 = 0x6c7967656e657261 // "lygenera"
	sipInit3 = 0x7465646279746573 // "tedbytes"
)

type sipState struct{ v0, v1, v2, v3 uint64 }

func newSipState(k0, k1 uint64) sipState {
	return sipState{k0 ^ sipInit0, k1 ^ sipInit1, k0 ^ sipInit2, k1 ^ sipInit3}
}

func (s *sipState) round() {
	s.v0 += s.v1
	s.v1 = bits.RotateLeft64(s.v1, 13)
	s.v1 ^= s.v0
	s.v0 = bits.RotateLeft64(s.v0, 32)
	s.v2 += s.v3
	s.v3 = bits.RotateLeft64(s.v3, 16)
	s.v3 ^= s.v2
	s.v0 += s.v3
	s.v3 = bits.RotateLeft64(s.v3, 21)
	s.v3 ^= s.v0
	s.v2 += s.v1
	s.v1 = bits.RotateLeft64(s.v1, 17)
	s.v1 ^= s.v2
	s.v2 = bits.RotateLeft64(s.v2, 32)
}

// compress13 mixes in one message word with the single round of SipHash-1-3.
func (s *sipState) compress13(m uint64) {
	s.v3 ^= m
	s.round()
	s.v0 ^= m
}

// finish13 runs the three finalisation rounds of SipHash-1-3.
func (s *sipState) finish13() uint64 {
	s.v2 ^= 0xff
	s.round()
	s.round()
	s.round()
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3
}

func le64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

func le64s(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// tail packs the last len(s) < 8 bytes of a message with the length byte on top; a switch
// with fallthrough is a jump table, not a loop of variable shifts.
func tail(s string, total int) uint64 {
	b := uint64(total&0xff) << 56
	switch len(s) {
	case 7:
		b |= uint64(s[6]) << 48
		fallthrough
	case 6:
		b |= uint64(s[5]) << 40
		fallthrough
	case 5:
		b |= uint64(s[4]) << 32
		fallthrough
	case 4:
		b |= uint64(s[3]) << 24
		fallthrough
	case 3:
		b |= uint64(s[2]) << 16
		fallthrough
	case 2:
		b |= uint64(s[1]) << 8
		fallthrough
	case 1:
		b |= uint64(s[0])
	}
	return b
}

// SipHash returns SipHash-c-d of msg under (k0, k1). It is the plain form of the paper, used
// where speed does not matter and to check the specialised key digest.
func SipHash(c, d int, k0, k1 uint64, msg []byte) uint64 {
	s := newSipState(k0, k1)
	n := len(msg)
	i := 0
	for ; i+8 <= n; i += 8 {
		m := le64(msg[i:])
		s.v3 ^= m
		for r := 0; r < c; r++ {
			s.round()
		}
		s.v0 ^= m
	}
	m := tail(string(msg[i:]), n)
	s.v3 ^= m
	for r := 0; r < c; r++ {
		s.round()
	}
	s.v0 ^= m
	s.v2 ^= 0xff
	for r := 0; r < d; r++ {
		s.round()
	}
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3
}
