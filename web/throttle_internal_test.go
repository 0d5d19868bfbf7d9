package web

import (
	"fmt"
	"net/netip"
	"runtime"
	"testing"
	"time"
)

// TestThrottleMemory: a throttle full of addresses, each with every good
// token it remembers and its checks spent, holds its bound of addresses
// and under 10 MB, whatever more addresses send.
func TestThrottleMemory(t *testing.T) {
	th := newThrottle(Throttle{})
	now := time.Now()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range DefaultThrottle.Addresses + 5000 {
		key := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 32)
		for g := range goodTokens {
			c, _, _ := th.begin(key, fmt.Sprintf("lt_%d_%d", i, g), now)
			c.done(passed, now)
		}
		for range DefaultThrottle.Burst {
			c, _, _ := th.begin(key, "lt_wrong", now)
			c.done(failed, now)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d addresses held, heap grown by %.1f MB", th.size(), float64(grown)/1e6)
	if th.size() != DefaultThrottle.Addresses {
		t.Errorf("%d addresses held, want %d", th.size(), DefaultThrottle.Addresses)
	}
	if grown > 10e6 {
		t.Errorf("the throttle holds %.1f MB", float64(grown)/1e6)
	}
	runtime.KeepAlive(th)
}
