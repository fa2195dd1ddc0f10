package shell

import (
	"slices"
	"testing"
)

// TestSQLFiles: the files a SQL client's code opens by name are reads;
// a string literal that is only data is not.
func TestSQLFiles(t *testing.T) {
	for _, tc := range []struct {
		src  string
		read string // a path read ("" none from the SQL)
	}{
		{`sqlite3 :memory: "select readfile('$HOME/.ssh/id_rsa')"`, testHome + "/.ssh/id_rsa"},
		{`sqlite3 x.db "ATTACH DATABASE '$HOME/.mozilla/firefox/p/cookies.sqlite' AS c"`, testHome + "/.mozilla/firefox/p/cookies.sqlite"},
		{`psql -c "select pg_read_file('/etc/shadow')"`, "/etc/shadow"},
		{`psql -c "COPY t (a) FROM '/home/dev/.pgpass'"`, "/home/dev/.pgpass"},
		{`mysql -e "SELECT LOAD_FILE('/home/dev/.my.cnf')"`, "/home/dev/.my.cnf"},
		{"sqlite3 x.db '.read /home/dev/.ssh/id_rsa'", "/home/dev/.ssh/id_rsa"},
		{`sqlite3 x.db "select * from notes where body like '%/home/dev/.ssh/id_rsa%'"`, ""},
		{`psql -c "select count(*) from orders"`, ""},
	} {
		r := Parse(tc.src, testCwd, testHome, testUser)
		var got []string
		for _, p := range r.Paths {
			if p.Access&AccessRead != 0 {
				got = append(got, p.Path)
			}
		}
		if tc.read != "" && !slices.Contains(got, tc.read) {
			t.Errorf("%s: %s not read (reads %q)", tc.src, tc.read, got)
		}
		if tc.read == "" {
			for _, p := range got {
				if p == testHome+"/.ssh/id_rsa" || p == "/home/dev/.ssh/id_rsa" {
					t.Errorf("%s: a string literal became a read of %s", tc.src, p)
				}
			}
		}
	}
}
