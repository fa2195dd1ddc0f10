//go:build !linux && !darwin

package sandbox

import "os/exec"

// plan is a prepared launch; on this system there is none.
type plan struct{}

// Prepare fails: the kernel sandbox is Linux-only.
func Prepare(o Options) (*plan, error) { return nil, ErrUnsupported }

// Report is empty.
func (p *plan) Report() Report { return Report{} }

// Run fails: the kernel sandbox is Linux-only.
func (p *plan) Run() (int, error) { return 0, ErrUnsupported }

// Start fails: the kernel sandbox is Linux-only.
func (p *plan) Start() (*exec.Cmd, error) { return nil, ErrUnsupported }

// Close does nothing.
func (p *plan) Close() error { return nil }

// Probe reports what this system enforces: nothing.
func Probe() Report {
	return Report{Network: "not restricted", SeccompWhy: "not Linux", Gaps: []string{ErrUnsupported.Error()}}
}

// MaybeChild does nothing: no launcher child exists here.
func MaybeChild() {}
