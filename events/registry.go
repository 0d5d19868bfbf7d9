package events

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"
)

// Upcaster turns a payload of schema version n into version n+1.
type Upcaster func(payload json.RawMessage) (json.RawMessage, error)

// TypeInfo describes one registered event type.
type TypeInfo struct {
	// Name is the persisted type name; never renamed or reused.
	Name string
	// Schema is the current payload schema version (from 1).
	Schema int
	// Doc says in one line what the event records (docs/events.md).
	Doc string
	// upcasters[n] upgrades schema n to n+1.
	upcasters map[int]Upcaster
}

// Registry knows every event type the ledger writes, its current schema
// version and how to upgrade older payloads on read.
type Registry struct {
	mu    sync.RWMutex
	types map[string]*TypeInfo
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{types: map[string]*TypeInfo{}} }

// Register adds an event type at its current schema version. It panics on a
// second registration of the same name: type names are never reused.
func (r *Registry) Register(name string, schema int, doc string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.types[name]; ok {
		panic("events: type registered twice: " + name)
	}
	if schema < 1 {
		panic("events: schema versions start at 1: " + name)
	}
	r.types[name] = &TypeInfo{Name: name, Schema: schema, Doc: doc, upcasters: map[int]Upcaster{}}
}

// RegisterUpcaster adds the upgrade of name's payload from schema from to from+1.
func (r *Registry) RegisterUpcaster(name string, from int, up Upcaster) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.types[name]
	if !ok {
		panic("events: upcaster for unregistered type: " + name)
	}
	t.upcasters[from] = up
}

// Lookup returns the registered type, if any.
func (r *Registry) Lookup(name string) (TypeInfo, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.types[name]
	if !ok {
		return TypeInfo{}, false
	}
	return *t, true
}

// Types returns every registered type, sorted by name.
func (r *Registry) Types() []TypeInfo {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]TypeInfo, 0, len(r.types))
	for _, t := range r.types {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Upcast returns e's payload at the current schema of its type, applying
// registered upcasters in order. The stored envelope is left as it is.
func (r *Registry) Upcast(e *Envelope) (json.RawMessage, error) {
	r.mu.RLock()
	t, ok := r.types[e.Type]
	r.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("event %s: unknown type %q", e.ID, e.Type)
	}
	if e.Schema > t.Schema {
		return nil, fmt.Errorf("event %s: %s schema %d is newer than this program's %d", e.ID, e.Type, e.Schema, t.Schema)
	}
	p := e.Payload
	for v := e.Schema; v < t.Schema; v++ {
		up, ok := t.upcasters[v]
		if !ok {
			return nil, fmt.Errorf("event %s: no upcaster for %s from schema %d", e.ID, e.Type, v)
		}
		var err error
		if p, err = up(p); err != nil {
			return nil, fmt.Errorf("event %s: upcast %s from schema %d: %w", e.ID, e.Type, v, err)
		}
	}
	return p, nil
}
