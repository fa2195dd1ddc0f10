// Package ask is the ask channel: how a call the policy asks about reaches
// a person when the caller has no prompt of its own (the MCP proxy, the
// sandbox's egress proxy).
//
// A Channel tries the backends named by AIRLOCK_ASK_BACKEND in order
// (default "socket,tty,desktop,fallback"):
//
//   - socket: the approval daemon `airlock askd`, answered by a person at
//     the daemon's terminal. On Linux it listens on an abstract socket
//     named from the uid and the home (Landlock's scope keeps sandboxed
//     processes from connecting to it); elsewhere on askd.sock in the
//     Airlock home (mode 0600). Questions and answers are MACed with the
//     home's askd.key (proof.go), so only an Airlock process of this user
//     can put a question on the screen or answer one;
//   - tty: a prompt on the controlling terminal, used only when this
//     process is in the terminal's foreground process group and the
//     terminal is in line mode (a full-screen program such as an agent's
//     own interface owns a terminal in raw mode, and a prompt there would
//     garble it and steal its keys);
//   - desktop: zenity or kdialog on Linux with a display, osascript on
//     macOS;
//   - fallback: the policy's ask_fallback decides.
//
// A backend that cannot reach anyone is skipped. The first that reaches a
// person ends the search: a person who does not answer within
// AIRLOCK_ASK_TIMEOUT (60 s) has not approved, and an answer that comes
// later is discarded. Without "fallback" in the list an unanswered ask is
// refused.
//
// A person's answer is remembered for AIRLOCK_ASK_REMEMBER seconds (300;
// 0 always asks) per exact call shape, so an agent retrying the same call
// is not asked again. Only answers are remembered: the gate decides
// forbids, holds and every other stage before it asks, so a remembered
// answer can only ever settle an ask. Concurrent asks about the same
// shape share one prompt.
//
// What the prompt shows is only what the broker observed. Strings that came
// from the agent or a server (tool, server, target) and the policy's
// reason are shown quoted and escaped: control, bidi and invisible
// characters are made visible, so none of them can draw a line of the
// prompt or an answer of its own.
package ask
