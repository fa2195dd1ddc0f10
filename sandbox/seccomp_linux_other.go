//go:build linux && !amd64 && !arm64

package sandbox

import (
	"errors"
	"runtime"
)

func installSeccomp() error { return errors.New("no seccomp filter for " + runtime.GOARCH) }

func seccompAvailable() (bool, string) { return false, "no filter for " + runtime.GOARCH }
