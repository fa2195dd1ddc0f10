//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package ask

import "os"

func promptable(*os.File) string { return "terminal prompts are not supported on this system" }

func flushInput(*os.File) {}
