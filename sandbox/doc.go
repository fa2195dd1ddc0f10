// Package sandbox is the kernel launcher behind `airlock run` and
// `airlock-mcp --sandbox`: it starts a command under Landlock (files, TCP
// ports, IPC scopes), a seccomp filter (the syscalls a coding agent has no
// use for) and, in the parent, the egress proxy; and it says plainly, in
// the banner and the gap list, what this kernel enforces and what it does
// not. Both front ends open one Session (session.go): the launch, the
// egress proxy with the ask channel and the notice of a block they pass in
// (sandbox may not import gate), and the session's start and end records.
//
// Go cannot run code between fork and exec. Landlock, no_new_privs and a
// seccomp filter are per thread and inherited by a fork, so the launcher
// restricts one locked OS thread, forks the command from it and lets that
// thread die; the rest of the process stays unconfined. That thread is
// never the main one: the package's init locks the main goroutine to the
// main thread for the life of the process, so no other goroutine runs
// there. The runtime parks a main thread whose goroutine returns locked
// instead of ending it, and a parked, restricted thread-group leader would
// put the supervisor inside the command's Landlock domain, where signal
// scoping no longer keeps the command from killing it. (Restricting only
// in a re-executed child would close this too, at the price of a second
// start-up on every launch; the lock costs nothing measurable, and the
// launch refuses to restrict the main thread should a binary unlock it.)
// The alternative
// (Options.ReExec) re-executes this binary (/proc/self/exe) with a hidden
// first argument; that child restricts itself and execs the target, which
// costs the binary's start-up once more. Every binary that may launch
// calls MaybeChild first thing in main. The launch takes that way by
// itself when the kernel lets it start the command in a user and mount
// namespace of its own, where the denied entries become read-only mounts
// before the restrictions and the exec (mountns_linux.go): a thread of a
// multi-threaded process cannot enter a user namespace, and the mounts
// need code between the clone and the exec.
//
// Before it starts the command the launch empties the capability sets
// (caps_linux.go), and when stdin is a terminal it gives the command a
// session and a pty of its own that Run relays (pty_linux.go). The parent walks the allowed
// trees, builds the Landlock ruleset, serves the egress proxy and writes
// the audit records.
//
// The sandbox never decides a tool call (that is the gate's job) and never
// widens what the policy forbids: Landlock can only allow, so the allowed
// trees are walked and every entry a forbid names is left out; what could
// not be walked is not granted and is reported.
package sandbox
