//go:build !linux

package doctor

import "runtime"

func probeKernel() kernelFacts {
	why := "the kernel sandbox is Linux-only; on " + runtime.GOOS + " processes Airlock launches run unconfined"
	return kernelFacts{landlockWhy: why, seccompWhy: why}
}
