package web

import "sync"

// gate admits commands until it closes, and says when the last one
// admitted has left: graceful shutdown refuses new commands (503) and
// waits for those in flight.
type gate struct {
	mu     sync.Mutex
	closed bool
	n      int
	idle   chan struct{}
}

// enter admits a command, or reports false once the gate is closed.
func (g *gate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.n++
	return true
}

// leave marks an admitted command done.
func (g *gate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	if g.n == 0 && g.closed {
		g.signal()
	}
}

// close stops admitting; the channel closes when nothing is in flight.
func (g *gate) close() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed {
		g.closed = true
		g.idle = make(chan struct{})
		if g.n == 0 {
			g.signal()
		}
	}
	return g.idle
}

func (g *gate) signal() {
	select {
	case <-g.idle:
	default:
		close(g.idle)
	}
}
