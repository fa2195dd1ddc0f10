//go:build !linux

package policy

// resolveFast has no shortcut here; the portable walk resolves.
func resolveFast(string) (string, bool) { return "", false }
