//go:build !unix

package audit

const nonBlock = 0
