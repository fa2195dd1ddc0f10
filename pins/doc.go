// Package pins remembers the toolset of every MCP server Airlock proxies,
// trusting it on first use, and holds a server whose toolset changes (a
// "rug pull") or looks poisoned until a person approves, rejects or
// forgets the change.
//
// A toolset is fingerprinted over what reaches the model or shapes its
// calls — each tool's name, title, description, input and output schema
// and annotations — in a canonical JSON form (canon.go), so key order,
// white space and tool order never look like a change and a hidden
// character in a description always does. The store is
// $AIRLOCK_HOME/pins.json, replaced atomically under the cross-process
// lock pins.lock, so two proxies starting the same server at once cannot
// lose a hold. Schemas validates call arguments against the pinned input
// schemas, offline, refusing the undeclared arguments a poisoned
// description asks for.
//
// pins remembers and judges toolsets; it never relays a message, decides a
// call or writes the audit log. A hold is released only by a person
// (Approve, Reject, Forget) or by the server serving its pinned toolset
// again; no error path releases one.
package pins
