package corpus

import (
	"strings"
	"testing"
)

func TestParseProfileLine(t *testing.T) {
	data := "# profile: paranoid\n## c\n# source: https://example.com/\nallow\tGlob\t{\"pattern\":\"*\"}\n"
	cases, err := parse([]byte(data), "x.txt", placeholders{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 1 || cases[0].Profile != "paranoid" {
		t.Fatalf("want one case under paranoid, got %+v", cases)
	}
	cases, err = parse([]byte("## c\nallow\tGlob\t{}\n"), "y.txt", placeholders{})
	if err != nil || len(cases) != 1 || cases[0].Profile != "" {
		t.Fatalf("a file without a profile line: %+v, %v", cases, err)
	}
}

func TestParseProfileLineMisplaced(t *testing.T) {
	for name, data := range map[string]string{
		"after a case": "## c\nallow\tGlob\t{}\n# profile: paranoid\n",
		"twice":        "# profile: paranoid\n# profile: default\n",
		"empty":        "# profile:\n",
	} {
		_, err := parse([]byte(data), "z.txt", placeholders{})
		if err == nil || !strings.Contains(err.Error(), "z.txt:") {
			t.Errorf("%s: want an error naming the file and line, got %v", name, err)
		}
	}
}

func TestPlaceholdersLeaveShellAndPerlHomeAlone(t *testing.T) {
	p := placeholders{"{HOME}": "/h"}
	for in, want := range map[string]string{
		`{HOME}/.ssh`:             `/h/.ssh`,
		`"{HOME}/x"`:              `"/h/x"`,
		`${HOME}/.ssh`:            `${HOME}/.ssh`,
		`remove_tree($ENV{HOME})`: `remove_tree($ENV{HOME})`,
		`a={HOME} b=x{HOME}`:      `a=/h b=x{HOME}`,
	} {
		if got := p.Replace(in); got != want {
			t.Errorf("Replace(%q) = %q, want %q", in, got, want)
		}
	}
}
