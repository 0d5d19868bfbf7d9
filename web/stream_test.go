package web_test

import (
	"testing"
	"time"

	"github.com/clubledger/ledger/web"
)

// TestStreamsEndOnReissue: three live streams of marie's token are open
// when the umpire reissues it; all three end within a second (docs/api.md:
// a reissued token's streams end at once), while karl's stays open.
func TestStreamsEndOnReissue(t *testing.T) {
	s := startServer(t, web.Options{})
	s.seed()
	var marie []<-chan struct{}
	for range 3 {
		marie = append(marie, s.stream(s.tokens["marie"]))
	}
	karl := s.stream(s.tokens["karl"])
	waitFor(t, 10*time.Second, "four streams open", func() bool { return s.web.Streams() == 4 })

	s.must(s.command(s.tokens["uma"], "", "player.reissue_token", map[string]any{"command": map[string]any{"player": "marie"}}), 201)
	start := time.Now()
	second := time.NewTimer(time.Second)
	defer second.Stop()
	for i, ended := range marie {
		select {
		case <-ended:
		case <-second.C:
			t.Fatalf("marie's stream %d of 3 still open %s after the reissue", i+1, time.Since(start).Round(time.Millisecond))
		}
	}
	t.Logf("marie's 3 streams ended %s after the reissue", time.Since(start).Round(time.Millisecond))
	select {
	case <-karl:
		t.Fatal("karl's stream ended too")
	default:
	}
	if n := s.web.Streams(); n != 1 {
		t.Errorf("%d streams open, want karl's 1", n)
	}
}
