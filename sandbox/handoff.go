package sandbox

import "sync"

// termHandoff lets the ask channel take the person's terminal from the
// relay of the session's command while it asks: Session wraps its Asker
// with it, and Run sets the relay while the command runs on a pty.
type termHandoff struct {
	mu    sync.Mutex
	relay interface{ handOver(func()) }
}

func (h *termHandoff) set(r interface{ handOver(func()) }) {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.relay = r
	h.mu.Unlock()
}

// during runs fn with the terminal handed over, if a relay runs.
func (h *termHandoff) during(fn func()) {
	if h == nil {
		fn()
		return
	}
	h.mu.Lock()
	r := h.relay
	h.mu.Unlock()
	if r == nil {
		fn()
		return
	}
	r.handOver(fn)
}
