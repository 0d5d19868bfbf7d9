package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// catalogue reads i18n/<lang>.json.
func catalogue(t *testing.T, lang string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("../../i18n", lang+".json"))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPageTextsInBothLanguages: every text the page's scripts name (t("…")
// and every "page.…" key) is in the English and the Russian catalogue, not
// empty; so is every value of each kind of term the page names
// (page.term.<kind>.<value>) that one catalogue has.
func TestPageTextsInBothLanguages(t *testing.T) {
	en, ru := catalogue(t, "en"), catalogue(t, "ru")
	files, err := filepath.Glob("../../web/static/*.js")
	if err != nil || len(files) == 0 {
		t.Fatalf("the page's scripts: %v %v", files, err)
	}
	keyRe := regexp.MustCompile(`\bt\("([a-z_][a-z_.0-9]*)"|"(page\.[a-z_.0-9]*[a-z0-9_])"`)
	termRe := regexp.MustCompile(`\bterm\("([a-z_]+)"`)
	keys, kinds := map[string]bool{}, map[string]bool{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range keyRe.FindAllStringSubmatch(string(src), -1) {
			keys[m[1]+m[2]] = true
		}
		for _, m := range termRe.FindAllStringSubmatch(string(src), -1) {
			kinds[m[1]] = true
		}
	}
	if len(keys) < 200 || len(kinds) < 10 {
		t.Fatalf("found only %d keys and %d kinds of term in the scripts", len(keys), len(kinds))
	}
	for kind := range kinds {
		prefix := "page.term." + kind + "."
		n := 0
		for _, cat := range []map[string]string{en, ru} {
			for k := range cat {
				if strings.HasPrefix(k, prefix) {
					keys[k] = true
					n++
				}
			}
		}
		if n == 0 {
			t.Errorf("term kind %q has no words in either catalogue", kind)
		}
	}
	var missing []string
	for k := range keys {
		if strings.HasSuffix(k, ".") { // a prefix the script completes: some key must have it
			n := 0
			for c := range en {
				if strings.HasPrefix(c, k) && ru[c] != "" {
					n++
				}
			}
			if n == 0 {
				missing = append(missing, "both: "+k+"*")
			}
			continue
		}
		for lang, cat := range map[string]map[string]string{"en": en, "ru": ru} {
			if strings.TrimSpace(cat[k]) == "" {
				missing = append(missing, lang+": "+k)
			}
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("the page names a text its catalogue lacks: %s", m)
	}
}

// TestBrowserPageRussian opens the battle page in Russian as the French
// player with each of her tools in turn, and as the umpire, and finds no
// English text of the catalogue among the page's own words, and no
// catalogue key shown as itself. (What the server writes, event
// descriptions and refusals, comes in the request's language from the
// server's catalogue; the test logs any of it still in English.)
func TestBrowserPageRussian(t *testing.T) {
	ts := peopleServer(t)
	aspern(t, ts, "", "initiative.take")
	en, ru := catalogue(t, "en"), catalogue(t, "ru")
	var phrases []string
	for k, v := range en {
		// Page words that Russian says differently, of two words or more.
		if (strings.HasPrefix(k, "page.") || strings.HasPrefix(k, "battle.") || strings.HasPrefix(k, "disputes.") || strings.HasPrefix(k, "audit.")) &&
			strings.Count(strings.TrimSpace(v), " ") >= 1 && ru[k] != v && !strings.Contains(v, "{") {
			phrases = append(phrases, v)
		}
	}
	newTab := browser(t)
	b := newTab("marie")
	b.open(ts, "marie", "/c/demo/b/aspern?lang=ru", "#play #turn-text", 1280, 900)
	check := func(what string) {
		t.Helper()
		// The previews and odds answer first.
		b.do("settle "+what, void(chromedp.Poll[bool](`!document.querySelector('.preview[data-state="pending"], #odds p.muted')`)))
		// The page's own words: what the server wrote (event descriptions,
		// refusals, in the request's language) is the server's to translate.
		text := evalIn[string](b, `(() => { const c = document.body.cloneNode(true); c.querySelectorAll(".srv, textarea, input").forEach(x => x.remove()); document.body.append(c); c.hidden = false; const s = c.innerText; c.remove(); return s; })()`)
		for _, srv := range evalIn[[]string](b, `[...document.querySelectorAll(".srv")].map(x => x.textContent)`) {
			for _, p := range phrases {
				if strings.Contains(srv, p) {
					t.Logf("%s: the server's words in English on the Russian page: %q", what, srv)
					break
				}
			}
		}
		for _, p := range phrases {
			if i := strings.Index(text, p); i >= 0 {
				t.Errorf("%s: English on the Russian page: %q in %q", what, p, text[max(0, i-80):min(len(text), i+len(p)+80)])
			}
		}
		for _, m := range regexp.MustCompile(`\b[a-z_]+(\.[a-z_0-9]+)+\b`).FindAllString(text, -1) {
			if _, isKey := en[m]; isKey {
				t.Errorf("%s: a catalogue key shown as itself: %q", what, m)
			}
		}
	}
	check("the battle page")
	tapUnit(b, "2-leger")
	for _, tool := range []string{"initiative", "order", "move", "turn", "formation", "charge", "fire", "combat", "tactical", "flank", "seed", "other"} {
		if tool == "tactical" || tool == "flank" || tool == "seed" || tool == "other" {
			b.do("tool "+tool, chromedp.Click(chromedp.CSS(`#do-`+tool)), chromedp.WaitVisible(chromedp.CSS(`#tool .tool-body`)))
		} else {
			tapUnit(b, "2-leger")
			b.do("tool "+tool, chromedp.Click(chromedp.CSS(`#do-`+tool)), chromedp.WaitVisible(chromedp.CSS(`#tool .tool-body`)))
		}
		check("the " + tool + " tool")
	}
	b.shot("ru-tools")
	u := newTab("uma")
	u.open(ts, "uma", "/c/demo/b/aspern?lang=ru", "#play #turn-text", 1280, 900)
	b = u
	check("the umpire's page")
	for _, tool := range []string{"battle", "brigade-order", "objective"} {
		b.do("tool "+tool, chromedp.Click(chromedp.CSS(`#do-`+tool)), chromedp.WaitVisible(chromedp.CSS(`#tool .tool-body`)))
		check("the umpire's " + tool + " tool")
	}
	b.do("campaign", chromedp.Navigate(ts.url+"/c/demo?lang=ru"), chromedp.WaitVisible(chromedp.CSS(`#standings table`)))
	check("the campaign page")
	b.do("home", chromedp.Navigate(ts.url+"/?lang=ru"), chromedp.WaitVisible(chromedp.CSS(`#campaigns li[data-campaign="demo"]`)))
	check("the landing page")
}
