package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign/loadgen"
)

// TestBackupCountsSayTheirPlurals: ledger backup, restore --check and
// restore say one sealed value, one battle (not "1 sealed values", "1
// battles"), in English and in Russian.
func TestBackupCountsSayTheirPlurals(t *testing.T) {
	src := newCLI(t)
	ctx := context.Background()
	a, err := OpenApp(ctx, src.cfg, AppOptions{Entropy: src.entropy})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Service.Execute(ctx, loadgen.CreateCampaign("bk")); err != nil {
		t.Fatal(err)
	}
	g := loadgen.NewBattle("bk", "open", 2)
	for i := 0; i < 10; i++ {
		if _, err := a.Service.Execute(ctx, g.Next()); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.CatchUp(ctx, nil); err != nil {
		t.Fatal(err)
	}
	a.Close()
	file := filepath.Join(t.TempDir(), "ledger.backup")
	if out := src.ok("backup", "-f", file); !strings.Contains(out, " 2 streams up to") || !strings.Contains(out, ", 1 sealed value, ") {
		t.Errorf("backup: %s", out)
	}
	if out := src.ok("restore", "--check", "-f", file); !strings.Contains(out, ", 1 sealed value, taken") {
		t.Errorf("restore --check: %s", out)
	}
	src.cfg.Lang = "ru"
	if out := src.ok("restore", "--check", "-f", file); !strings.Contains(out, "из 2 потоков") || !strings.Contains(out, ", 1 запечатанное значение, ") {
		t.Errorf("restore --check in Russian: %s", out)
	}
	for _, lang := range []string{"en", "ru"} {
		dst := newCLI(t)
		dst.cfg.Lang = lang
		copyKey(t, src, dst)
		want := map[string][]string{"en": {", 1 sealed value; 1 battle audited, 0 failed;"}, "ru": {", 1 запечатанное значение; проверено 1 сражение, не пройдено 0;"}}[lang]
		out := dst.ok("restore", "-f", file)
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("restore (%s): %s\nwant %q", lang, out, w)
			}
		}
	}
}
