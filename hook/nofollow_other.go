//go:build !unix

package hook

const noFollow = 0
