package shell

import (
	"reflect"
	"testing"
)

// TestWritten: the text a command puts into a file, as far as the command
// text tells it.
func TestWritten(t *testing.T) {
	for _, c := range []struct {
		src  string
		want []Written
	}{
		{"echo 'a b' >> ~/.bashrc", []Written{{Path: "/home/a/.bashrc", Text: "a b\n", Known: true, Append: true}}},
		{"printf 'x\\n' > .envrc", []Written{{Path: "/home/a/ws/.envrc", Text: "x\n", Known: true}}},
		{"cat > h <<'EOF'\nline\nEOF", []Written{{Path: "/home/a/ws/h", Text: "line\n", Known: true}}},
		{"echo hi | tee -a f g", []Written{{Path: "/home/a/ws/f", Text: "hi\n", Known: true, Append: true}, {Path: "/home/a/ws/g", Text: "hi\n", Known: true, Append: true}}},
		{"echo \"$X\" > f", []Written{{Path: "/home/a/ws/f"}}},
		{"sed -i -e '$a run me' -e 's/a/b\\/c/' f", []Written{{Path: "/home/a/ws/f", Text: "run me\nb/c\n", Known: true, Append: true}}},
		{"sed -i '1i /tmp/.x &' ~/.profile", []Written{{Path: "/home/a/.profile", Text: "/tmp/.x &\n", Known: true, Append: true}}},
		{"curl -so hook https://x.example/h", []Written{{Path: "/home/a/ws/hook", Fetched: true}}},
		{"cp /tmp/rc ~/.zshrc", []Written{{Path: "/home/a/.zshrc", From: "/tmp/rc"}, {Path: "/home/a/.zshrc/rc", From: "/tmp/rc"}}},
		{"sed 's/a/b/' f > g", []Written{{Path: "/home/a/ws/g"}}},
		{"cat f", nil},
	} {
		got := Parse(c.src, "/home/a/ws", "/home/a", "a").Written
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", c.src, got, c.want)
		}
	}
}

// TestWrittenBounded: no more than maxWritten facts, none longer than
// maxWrittenText.
func TestWrittenBounded(t *testing.T) {
	src := ""
	for i := 0; i < 200; i++ {
		src += "echo x > f" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "; "
	}
	if n := len(Parse(src, "/w", "/h", "u").Written); n > maxWritten {
		t.Fatalf("%d written facts", n)
	}
}
