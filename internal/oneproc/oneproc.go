// Package oneproc runs its process on one P (GOMAXPROCS 1) from package
// initialisation on. airlock-hook imports it for that alone: one tool
// call's decision is sequential, and with more Ps the runtime wakes
// another thread each time a goroutine becomes runnable (its own at init,
// the decision's, the answer's), which spins, finds nothing and sleeps;
// on this project's 2-vCPU VM that was ~0.17 ms of CPU and ~0.1 ms of a
// ~2 ms process (issue 16). It imports nothing but runtime, so it is
// initialised before the packages whose initialisation allocates most.
//
// The hook's deadline holds on one P: a decision stuck in a system call
// (a held lock, a FIFO) loses its P to the deadline's timer through the
// runtime's hand-off, and one stuck computing is preempted.
package oneproc

import "runtime"

func init() { runtime.GOMAXPROCS(1) }
