package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserClubNight follows the page through docs/club.md, the
// organiser's guide, and checks what the guide says a player sees: marie's
// token link opens her campaign, naming her and her side, with the battle
// listed (section 6); karl's battle page, open when his token is reissued
// at the organiser's laptop, says at once that his token is refused, and
// stops (section 8); his new link opens the battle; after the battle's end
// the campaign page shows the standings with the battle played (section
// 10). When LEDGER_DOCS_IMG names a folder it saves the guide's pictures
// there (from the repository's folder: LEDGER_DOCS_IMG=$PWD/docs/img go
// test ./cmd/ledger/ -run TestBrowserClubNight).
func TestBrowserClubNight(t *testing.T) {
	ts := seed(t)
	newTab := browser(t)
	marie, karl := newTab("marie"), newTab("karl")

	// Section 6: the link with marie's token.
	marie.open(ts, "marie", "/c/demo?lang=en", "#standings table", 900, 700)
	if you := evalIn[string](marie, `document.getElementById("you").textContent`); !strings.Contains(you, "marie") || !strings.Contains(you, "France") {
		t.Errorf("marie's campaign page says who she is as %q", you)
	}
	if rows := evalIn[string](marie, `[...document.querySelectorAll("main table tbody tr")].map(r => r.textContent).join(" | ")`); !strings.Contains(rows, "b1") || !strings.Contains(rows, "Eggmuhl") {
		t.Errorf("marie's campaign page lists %q, not the battle", rows)
	}
	marie.docShot("club-campaign.png", "main")

	// Section 8: karl's page is open on the battle when the organiser
	// reissues his token.
	karl.open(ts, "karl", "/c/demo/b/b1?lang=en", "#map g.unit", 900, 560)
	markLoaded(karl)
	r := ts.must(ts.command("admin", "", "player.reissue_token", map[string]any{"command": map[string]any{"player": "karl"}}), 201)
	karl.do("the old token refused on the open page", chromedp.WaitVisible(chromedp.CSS(`#token-refused`)), chromedp.WaitVisible(chromedp.CSS(`#token`)))
	if !stillLoaded(karl) {
		t.Error("karl's page reloaded: the refusal should come to the open page")
	}
	if text := evalIn[string](karl, `document.getElementById("token-refused").textContent`); !strings.Contains(text, "Token not accepted") || !strings.Contains(text, "reissued") {
		t.Errorf("the refusal reads %q", text)
	}
	evalIn[any](karl, `window.scrollTo(0, 0)`)
	karl.docViewport("club-token-refused.png")
	if old := ts.do("GET", "/api/campaigns/demo/battles/b1/state", ts.tokens["karl"], nil); old.status != 401 {
		t.Errorf("karl's old token: %d, want 401", old.status)
	}
	ts.tokens["karl"] = r.body["token"].(string)
	karl.do("leave", chromedp.Navigate("about:blank"))
	karl.open(ts, "karl", "/c/demo/b/b1?lang=en", "#map g.unit", 900, 560)
	if n := evalIn[int](karl, `document.querySelectorAll("#token-refused").length`); n != 0 {
		t.Error("karl's new link: the page still says his token is refused")
	}

	// Sections 9 and 10: the battle ends; the campaign page shows the
	// standings with it played.
	ts.must(ts.command("uma", "b1", "battle.end", map[string]any{"command": map[string]any{"reason": "the club closes at eleven"}}), 201)
	marie.do("the campaign page again", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#standings tr[data-side="french"]`)))
	played := evalIn[[]string](marie, `[...document.querySelectorAll('#standings tr[data-side] td')].map(x => x.textContent)`)
	// side, points, played, won, drawn, lost: each side
	if len(played) != 12 || played[2] != "1" || played[8] != "1" {
		t.Errorf("standings after the battle: %v, want each side with 1 played", played)
	}
	// The battle's points by side, each side by its name (as the table
	// above), not its id.
	results := evalIn[string](marie, `document.querySelector('#standings ul.results li').textContent`)
	if names := []string{played[0], played[6]}; !strings.Contains(results, names[0]+" ") || !strings.Contains(results, names[1]+" ") || strings.Contains(results, "french ") {
		t.Errorf("the battle's points: %q, want the sides by name %v", results, names)
	}
	marie.docShot("club-standings.png", "main")
}

// docViewport saves what the tab shows (its viewport) for the
// documentation when LEDGER_DOCS_IMG names a folder.
func (b *tab) docViewport(name string) {
	b.t.Helper()
	dir := os.Getenv("LEDGER_DOCS_IMG")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatalf("%s: picture: %v", b.name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("documentation picture: %s", filepath.Join(dir, name))
}
