package setup

import "strconv"

// The three file formats meet in one small view of a parsed document, so
// the rules for reading a server entry are written once. A value is read
// lazily, one level at a time: nothing below the fields a server reader
// asks for is ever expanded, which keeps YAML alias chains and deep JSON
// from costing more than the file's size.

type kind int

const (
	kNull kind = iota
	kBool
	kNum
	kStr
	kArr
	kObj
	kOther // a TOML date or time, a YAML scalar of an unknown tag
)

type value interface {
	kind() kind
	// text is a scalar's text: a string's content, a number as written,
	// "true" or "false".
	text() string
	// line is where the value starts (1-based), 0 when the format does not
	// say (TOML).
	line() int
	elems() []value
	members() []member // in file order; a repeated key appears twice
	// loose says a non-string scalar may stand for a string: YAML users
	// write `args: [--port, 8080]` and mean the text.
	loose() bool
}

type member struct {
	key  string
	line int // the key's line
	val  value
}

// get returns the last member named key, as JSON.parse and encoding/json
// do when a key is repeated.
func get(v value, key string) (member, bool) {
	var m member
	found := false
	for _, x := range v.members() {
		if x.key == key {
			m, found = x, true
		}
	}
	return m, found
}

// scalarString is v as a string when it is one (or, in YAML, any scalar).
func scalarString(v value) (string, bool) {
	switch v.kind() {
	case kStr:
		return v.text(), true
	case kNum, kBool:
		if v.loose() {
			return v.text(), true
		}
	}
	return "", false
}

func scalarBool(v value) (bool, bool) {
	if v.kind() != kBool {
		return false, false
	}
	b, err := strconv.ParseBool(v.text())
	return b, err == nil
}
