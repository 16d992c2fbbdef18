// Package hrwview is hrwhash-view-v1 (conformance/VIEW.md) in Go alone: the view document,
// fingerprints, expected movement and ramps, written from VIEW.md for the pure-Go build and
// checked by conformance/views.json like libhrwhash.
package hrwview

import (
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth is the deepest nesting of arrays and objects a document may have (the document
// object is level 1).
const maxDepth = 127

type kind int

const (
	kNull kind = iota
	kBool
	kNumber
	kString
	kArray
	kObject
)

// value is a parsed JSON value; objects keep their members in document order, repeats
// included, so that the checks of VIEW.md section 5 can see them.
type value struct {
	kind    kind
	str     string  // kString: the decoded text
	num     float64 // kNumber: the nearest binary64
	items   []value
	members []member
}

type member struct {
	name  string
	value value
}

type parser struct {
	s     []byte
	pos   int
	depth int
	names map[string]string // short strings seen, so that repeated member names share one copy
	// item, when set, takes each item of the array that is the document object's "nodes" member
	// as soon as it is parsed, instead of its value tree being kept: a view's nodes then become
	// Nodes one at a time (a million-node view's tree took more than its nodes and the document
	// together).
	item    func(value, int)
	inNodes bool // parsing the value of the document object's "nodes" member
	// nodeItem: the value being parsed is an item given to item, which is done with it before the
	// next one, so an object there keeps its members in reuse instead of a slice of its own.
	nodeItem bool
	reuse    []member
}

// intern is b as a string; short ones (member names, most of all) are allocated once.
func (p *parser) intern(b []byte) string {
	if len(b) > 8 {
		return string(b)
	}
	if s, ok := p.names[string(b)]; ok {
		return s
	}
	if p.names == nil {
		p.names = map[string]string{}
	}
	if len(p.names) < 256 {
		s := string(b)
		p.names[s] = s
		return s
	}
	return string(b)
}

// syntaxError is where parsing stopped.
type syntaxError struct{ pos int }

func (p *parser) fail() error { return syntaxError{p.pos} }

func (e syntaxError) Error() string { return "invalid JSON at byte " + strconv.Itoa(e.pos) }

// position is the 1-based line and the column of byte offset pos, where parsing stopped: the
// number of bytes of its line up to and including it, and at the end of the text one past its
// last byte (the position serde_json reports in the core).
func position(s []byte, pos int) (line, column int) {
	line = 1
	start := 0
	if pos > len(s) {
		pos = len(s)
	}
	for i := 0; i < pos; i++ {
		if s[i] == '\n' {
			line++
			start = i + 1
		}
	}
	// A line feed where parsing stopped (a raw one in a string) is the last byte of its line,
	// never column 0 of the next (VIEW.md section 5).
	return line, pos - start + 1
}

func (p *parser) ws() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// parse reads one JSON value surrounded by optional whitespace. item, when not nil, is given the
// items of the document object's "nodes" array (each with its position) in place of that array's
// items.
func parse(s []byte, item func(value, int)) (value, error) {
	p := &parser{s: s, item: item}
	p.ws()
	v, err := p.value()
	if err != nil {
		return value{}, err
	}
	p.ws()
	if p.pos != len(p.s) {
		return value{}, p.fail()
	}
	return v, nil
}

// literal reads word; on a mismatch it stops at the first byte that differs (or the end of the
// text), where the error is.
func (p *parser) literal(word string) bool {
	for i := 0; i < len(word); i++ {
		if p.pos >= len(p.s) || p.s[p.pos] != word[i] {
			return false
		}
		p.pos++
	}
	return true
}

func (p *parser) value() (value, error) {
	if p.pos >= len(p.s) {
		return value{}, p.fail()
	}
	switch c := p.s[p.pos]; {
	case c == '{' || c == '[':
		p.depth++
		if p.depth > maxDepth {
			return value{}, p.fail()
		}
		p.pos++
		var v value
		var err error
		if c == '{' {
			v, err = p.object()
		} else {
			v, err = p.array()
		}
		p.depth--
		return v, err
	case c == '"':
		s, err := p.string()
		return value{kind: kString, str: s}, err
	case c == 't':
		if p.literal("true") {
			return value{kind: kBool}, nil
		}
	case c == 'f':
		if p.literal("false") {
			return value{kind: kBool}, nil
		}
	case c == 'n':
		if p.literal("null") {
			return value{kind: kNull}, nil
		}
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return value{}, p.fail()
}

func (p *parser) object() (value, error) {
	v := value{kind: kObject}
	if p.nodeItem {
		p.nodeItem = false
		v.members = p.reuse[:0]
		defer func() { p.reuse = v.members[:0] }()
	}
	p.ws()
	if p.pos < len(p.s) && p.s[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	for {
		p.ws()
		if p.pos >= len(p.s) || p.s[p.pos] != '"' {
			return value{}, p.fail()
		}
		name, err := p.string()
		if err != nil {
			return value{}, err
		}
		p.ws()
		if p.pos >= len(p.s) || p.s[p.pos] != ':' {
			return value{}, p.fail()
		}
		p.pos++
		p.ws()
		p.inNodes = p.depth == 1 && name == "nodes"
		item, err := p.value()
		p.inNodes = false
		if err != nil {
			return value{}, err
		}
		v.members = append(v.members, member{name, item})
		done, err := p.next('}')
		if err != nil {
			return value{}, err
		}
		if done {
			return v, nil
		}
	}
}

// next reads on past the comma after an item (done false) or past close, the end of its object
// or array (done true).
func (p *parser) next(close byte) (done bool, err error) {
	p.ws()
	if p.pos >= len(p.s) {
		return false, p.fail()
	}
	switch p.s[p.pos] {
	case ',':
		p.pos++
		return false, nil
	case close:
		p.pos++
		return true, nil
	default:
		return false, p.fail()
	}
}

func (p *parser) array() (value, error) {
	v := value{kind: kArray}
	p.ws()
	if p.pos < len(p.s) && p.s[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	// Only the "nodes" array itself is streamed, not arrays inside its items.
	streamed := p.inNodes && p.depth == 2 && p.item != nil
	p.inNodes = false
	for index := 0; ; index++ {
		p.ws()
		p.nodeItem = streamed
		item, err := p.value()
		p.nodeItem = false
		if err != nil {
			return value{}, err
		}
		if streamed {
			p.item(item, index)
		} else {
			v.items = append(v.items, item)
		}
		done, err := p.next(']')
		if err != nil {
			return value{}, err
		}
		if done {
			return v, nil
		}
	}
}

// hex4 reads the four hex digits of a \u escape. A bad escape is reported at its fourth byte,
// after all four are read (at the end of the text when it has fewer).
func (p *parser) hex4() (rune, bool) {
	if len(p.s)-p.pos < 4 {
		p.pos = len(p.s)
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.s[p.pos:p.pos+4]), 16, 32)
	if err != nil {
		p.pos += 3
		return 0, false
	}
	p.pos += 4
	return rune(n), true
}

// string reads a JSON string at p.pos (its opening quote): UTF-8, no raw control characters,
// escapes decoded, a lone surrogate escape rejected. As in serde_json (the core's reader), the
// text is checked for UTF-8 once the string is closed, so a control character, a bad escape or
// the end of the text after an invalid byte is the error; an invalid byte is reported on the
// line of the closing quote, at its column less the decoded bytes from the first invalid byte
// on (serde_json's approximation when the string has escapes).
func (p *parser) string() (string, error) {
	// Most strings hold no escape: one copy of their bytes, not a byte-by-byte append (a 22 MB
	// view of a million nodes took 755 MB to load).
	start := p.pos + 1
	for i := start; i < len(p.s); i++ {
		c := p.s[i]
		if c == '"' {
			if !utf8.Valid(p.s[start:i]) {
				break
			}
			p.pos = i + 1
			return p.intern(p.s[start:i]), nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	p.pos++
	var out []byte
	invalid := -1 // the first byte of out that is not UTF-8
	for {
		if p.pos >= len(p.s) {
			return "", p.fail()
		}
		c := p.s[p.pos]
		switch {
		case c == '"':
			if invalid >= 0 {
				p.pos -= len(out) - invalid
				return "", p.fail()
			}
			p.pos++
			return string(out), nil
		case c < 0x20:
			return "", p.fail()
		case c == '\\':
			p.pos++
			if p.pos >= len(p.s) {
				return "", p.fail()
			}
			e := p.s[p.pos]
			p.pos++
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", p.fail()
				}
				if utf16.IsSurrogate(r) {
					// A surrogate escape of the wrong half is reported at its last digit.
					if r >= 0xDC00 {
						p.pos--
						return "", p.fail()
					}
					if !p.literal(`\u`) {
						return "", p.fail()
					}
					lo, ok := p.hex4()
					if !ok {
						return "", p.fail()
					}
					if lo < 0xDC00 || lo > 0xDFFF {
						p.pos--
						return "", p.fail()
					}
					r = utf16.DecodeRune(r, lo)
				}
				out = utf8.AppendRune(out, r)
			default:
				p.pos-- // at the escape's letter
				return "", p.fail()
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.s[p.pos:])
			if r == utf8.RuneError && size <= 1 {
				if invalid < 0 {
					invalid = len(out)
				}
				size = 1
			}
			out = append(out, p.s[p.pos:p.pos+size]...)
			p.pos += size
		}
	}
}

// nonZero says whether the mantissa of a number has a digit other than 0.
func nonZero(mantissa []byte) bool {
	for _, c := range mantissa {
		if c >= '1' && c <= '9' {
			return true
		}
	}
	return false
}

func digits(s []byte, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// number reads an RFC 8259 number as the nearest binary64; a magnitude beyond binary64 is a
// syntax error.
func (p *parser) number() (value, error) {
	start, i := p.pos, p.pos
	if p.s[i] == '-' {
		i++
	}
	switch {
	case i < len(p.s) && p.s[i] == '0':
		i++
	case i < len(p.s) && p.s[i] >= '1' && p.s[i] <= '9':
		i = digits(p.s, i)
	default:
		p.pos = i
		return value{}, p.fail()
	}
	if i < len(p.s) && p.s[i] == '.' {
		j := digits(p.s, i+1)
		if j == i+1 {
			p.pos = j
			return value{}, p.fail()
		}
		i = j
	}
	if i < len(p.s) && (p.s[i] == 'e' || p.s[i] == 'E') {
		mantissaEnd := i
		i++
		negativeExp := i < len(p.s) && p.s[i] == '-'
		if i < len(p.s) && (p.s[i] == '+' || p.s[i] == '-') {
			i++
		}
		j := digits(p.s, i)
		if j == i {
			p.pos = j
			return value{}, p.fail()
		}
		// serde_json (the core's reader) adds up the exponent in an i32: at the digit that
		// would pass 2^31 - 1 the number is out of range if it is not 0 and the exponent is
		// positive (reported at that digit), else it is 0.
		exp := int64(0)
		for k := i; k < j; k++ {
			exp = exp*10 + int64(p.s[k]-'0')
			if exp > math.MaxInt32 {
				if !negativeExp && nonZero(p.s[start:mantissaEnd]) {
					p.pos = k
					return value{}, p.fail()
				}
				break
			}
		}
		i = j
	}
	f, err := strconv.ParseFloat(string(p.s[start:i]), 64)
	if err != nil {
		// Only ErrRange is possible here: the text is a well-formed number, reported at its
		// last byte.
		p.pos = i - 1
		return value{}, p.fail()
	}
	p.pos = i
	return value{kind: kNumber, num: f}, nil
}
