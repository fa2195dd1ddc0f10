// Package notify tells the person at the desk, with a desktop notification,
// that Airlock blocked a call: what, why, and the one command that fixes it.
//
// notify never decides and never fails a call. Blocked returns no error, does
// not wait for the notification program, and drops a notification rather
// than wait for a lock: the decision has already been made and must not be
// slowed or changed by whether a desktop is listening. The audit log, not the
// notification, is the record (see `airlock report`).
//
// # Senders
//
// On Linux and the BSDs the message goes to notify-send, on macOS to
// osascript's "display notification"; elsewhere, or when the program is not
// on PATH (exec.LookPath, which refuses a PATH entry relative to the current
// directory), nothing is sent. The program is started with argv only, never a
// shell, with stdin, stdout and stderr on the null device — the hook's stdout
// is the agent's answer pipe and must not be held open by a child — and is
// reaped in a goroutine that kills it after 5 s. A short-lived airlock-hook
// simply exits; a long-lived process may call Notifier.Wait at shutdown.
//
// Every agent-controlled string is passed through textsafe.Escape (no control,
// bidi or invisible character survives) and capped: title ≤ 80 runes,
// body ≤ 300 runes, and the target is clipped before the fix command so that
// the fix is always visible. notify-send bodies are additionally escaped for
// the notification server's markup (& < >). osascript receives a constant
// script that reads the title and body from its argv, so no agent text is
// ever parsed as AppleScript.
//
// # Rate limits
//
// State is shared by every process on one AirlockHome (airlock-hook is one
// process per call) through notify.json, read and rewritten atomically
// (mode 0600) under an exclusive lock on notify.lock. If the lock is not had
// within 25 ms, if the state cannot be written, or if AirlockHome is empty or
// missing, the notification is dropped. A corrupt, unknown-version or
// oversized (> 64 KiB) state file is silently replaced by a fresh one.
//
// For each block, in this order:
//
//  1. Window. If no window is open, or AIRLOCK_NOTIFY_WINDOW has passed since
//     it opened (or the clock went backwards), a new window opens now. If the
//     old window folded N > 0 blocks, one notification "N more blocked —
//     airlock report" is sent first and counts as the first of the new
//     window's notifications. So folded blocks are announced when the next
//     block arrives after their window; if none ever does, they appear only in
//     the audit log and `airlock report`.
//  2. Cooldown. The block key is Tool+Rule+Target (stored as a truncated
//     SHA-256, so the state file never holds a command line or a path). A key
//     shown or folded less than AIRLOCK_NOTIFY_COOLDOWN ago is dropped: it is
//     neither shown nor counted. The cooldown runs from that first time, so a
//     steady stream of one block gives one notification per cooldown.
//  3. Budget. While fewer than AIRLOCK_NOTIFY_MAX notifications have been sent
//     in the window, the block is shown; after that it is counted in the
//     window's fold. No window ever carries more than AIRLOCK_NOTIFY_MAX
//     notifications, fold message included.
//
// At most 256 cooldown keys are kept; the oldest are forgotten first.
//
// # Environment
//
//	AIRLOCK_NOTIFY=0           off ("0", "false", "off" and "no", any case;
//	                           anything else, or unset, is on)
//	AIRLOCK_NOTIFY_COOLDOWN    20 s; "0" disables the cooldown
//	AIRLOCK_NOTIFY_MAX         5 notifications per window, 1..1000
//	AIRLOCK_NOTIFY_WINDOW      60 s, more than 0
//
// Durations are whole seconds ("20") or Go durations ("20s", "1m30s"), at
// most 24 h. A value that does not parse or is out of range is ignored and
// the default used: a typo must not silence notifications or turn them into
// a flood, and a notifier has no channel to report a configuration error on.
package notify
