package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// pdfPage matches a page object of a PDF file (not the /Pages tree).
var pdfPage = regexp.MustCompile(`/Type\s*/Page[^s]`)

// TestBrowserReportPDF opens the Aspern turn's report (ledger report, one
// HTML file) from the disk in Chromium, as a club member opens the file
// they were sent, and prints it to PDF on A4, as "Save as PDF" does
// (issue 28): the page asks for nothing beyond the file (no resource in
// the browser's performance record), and the PDF has a sane number of
// pages: at least one page per two pictures and no more than the
// pictures, the text and a page each for the tables can fill, so that no
// picture is cut in two or left alone with empty pages around it. The
// page count and the sizes go to the test's log.
func TestBrowserReportPDF(t *testing.T) {
	exe := browserPath(t)
	c := newCLI(t)
	c.ok("play", "../../examples/aspern-turn.yaml")
	file := filepath.Join(t.TempDir(), "aspern.html")
	c.ok("report", "danube-1809/aspern", "-f", file)
	doc, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pictures := bytes.Count(doc, []byte("<figure"))
	if pictures < 2 {
		t.Fatalf("the report holds %d pictures: the example should give several", pictures)
	}

	ctx := browserContext(t, exe)
	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate("file://"+file),
		chromedp.WaitVisible(chromedp.CSS("figure svg")),
	); err != nil {
		t.Fatalf("open the report: %v", err)
	}
	fetched, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`performance.getEntriesByType("resource").map(e => e.name)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(fetched) > 0 {
		t.Errorf("the report asked the browser for %d resources: %v", len(fetched), fetched)
	}
	pdf, err := chromedp.Run(ctx, chromedp.PrintToPDF(chromedp.PDFPaper(chromedp.PaperA4), func(p *page.PrintToPDFParams) { css := true; p.PreferCSSPageSize = &css }))
	if err != nil {
		t.Fatalf("print to PDF: %v", err)
	}
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Fatalf("not a PDF: %q", pdf[:min(len(pdf), 16)])
	}
	pages := len(pdfPage.FindAll(pdf, -1))
	tables := bytes.Count(doc, []byte("<table"))
	lo, hi := (pictures+1)/2, pictures+tables+2
	t.Logf("report: %d bytes, %d pictures, %d tables; PDF: %d bytes, %d A4 pages (sane: %d to %d)", len(doc), pictures, tables, len(pdf), pages, lo, hi)
	if pages < lo || pages > hi {
		t.Errorf("the PDF has %d pages for %d pictures and %d tables: want %d to %d", pages, pictures, tables, lo, hi)
	}
	if dir := os.Getenv("LEDGER_WEB_SCREENSHOT"); dir != "" {
		out := filepath.Join(filepath.Dir(dir), "ledger-report-aspern.pdf")
		if err := os.WriteFile(out, pdf, 0o644); err == nil {
			t.Logf("PDF: %s", out)
		}
	}
}
