//go:build !unix

package policy

const noFollow = 0
