//go:build !windows

package home

// programData is only asked on Windows.
func programData() string { return "" }
