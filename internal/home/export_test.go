//go:build unix

package home

// CheckWith is Check with the account databases at passwd and group, so a
// test can give the user a private or a shared group.
func CheckWith(path, passwd, group string) error {
	c := defaultChecker()
	c.passwd, c.group = passwd, group
	return c.home(path, false)
}
