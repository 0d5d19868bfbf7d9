package report

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"runtime"
	"strings"
	"sync"

	"github.com/clubledger/ledger/picture"
)

// Write writes the report in format (HTML, BBCode or Markdown). HTML is
// one self-contained file, its pictures inline as SVG; BBCode and
// Markdown name the pictures as the files WritePictures writes beside
// the post (r.Pictures[i].Name).
func (r *Report) Write(w io.Writer, format string) error {
	return page{blocks: r.document(), pictures: r.Pictures, lang: r.Lang, title: r.f("doc_title", "name", r.Name), head: r.Head}.write(w, format)
}

// page is a document ready to write: its blocks, its pictures (which the
// blocks name by index), its language, title and head ("" for none).
type page struct {
	blocks   []block
	pictures []Picture
	lang     string
	title    string
	head     string
}

func (p page) write(w io.Writer, format string) error {
	bw := bufio.NewWriter(w)
	switch format {
	case HTML, "":
		p.writeHTML(bw)
	case BBCode:
		p.writeBBCode(bw)
	case Markdown:
		p.writeMarkdown(bw)
	default:
		return fmt.Errorf("report: format %q: want html, bbcode or markdown", format)
	}
	return bw.Flush()
}

// printCSS lays the report out on a screen and on paper: pictures within
// the page, a turn's heading with its picture, no split figure or table
// row, no colours needed; on a phone's screen a table wider than the page
// scrolls by itself instead of cutting off its last columns.
const printCSS = `body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:1.5rem auto;padding:0 1rem;color:#111}
h1{font-size:1.8rem;margin:0 0 .3rem}h2{margin-top:2rem;border-bottom:1px solid #999}h3{margin-top:1.4rem}
figure{margin:.8rem 0;break-inside:avoid;page-break-inside:avoid}figure svg{max-width:100%;height:auto;display:block;border:1px solid #ccc}
figcaption{font-size:.85rem;color:#444}table{border-collapse:collapse;width:100%;margin:.6rem 0}
th,td{border:1px solid #bbb;padding:.2rem .4rem;text-align:left;vertical-align:top}tr{break-inside:avoid;page-break-inside:avoid}
ol.narrative{list-style:none;padding-left:0}ol.narrative li{margin:.15rem 0}li.moment{font-weight:600}li.moment figure{font-weight:400}pre{white-space:pre-wrap;word-break:break-all;background:#f4f4f4;padding:.5rem}
code{word-break:break-all}
@media screen and (max-width:40rem){table{display:block;overflow-x:auto}}
@media print{body{margin:0;max-width:none;font-size:11pt}h2,h3{break-after:avoid;page-break-after:avoid}
h2{break-before:auto}a{color:inherit;text-decoration:none}}
@page{size:A4;margin:15mm}`

func (p page) writeHTML(w *bufio.Writer) {
	e := html.EscapeString
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n", e(p.lang))
	w.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	w.WriteString("<meta name=\"generator\" content=\"campaign ledger\">\n")
	if p.head != "" {
		fmt.Fprintf(w, "<meta name=\"ledger-head\" content=\"%s\">\n", e(p.head))
	}
	fmt.Fprintf(w, "<title>%s</title>\n<style>\n%s\n</style>\n</head>\n<body>\n", e(p.title), printCSS)
	figure := func(n int) {
		if n < 0 || n >= len(p.pictures) {
			return
		}
		pc := p.pictures[n]
		fmt.Fprintf(w, "<figure class=\"picture\" id=\"picture-%d\" data-version=\"%d\" data-file=\"%s\">\n", n+1, pc.Version, e(pc.Name))
		w.Write(inlineSVG(pc.SVG))
		fmt.Fprintf(w, "<figcaption>%s</figcaption>\n</figure>\n", e(pc.Caption))
	}
	for _, b := range p.blocks {
		switch b.kind {
		case bTitle:
			fmt.Fprintf(w, "<header>\n<h1>%s</h1>\n</header>\n", e(b.text))
		case bHeading:
			fmt.Fprintf(w, "<h2 id=\"%s\">%s</h2>\n", e(b.id), e(b.text))
		case bSubheading:
			fmt.Fprintf(w, "<h3 id=\"%s\">%s</h3>\n", e(b.id), e(b.text))
		case bMinor:
			fmt.Fprintf(w, "<h4 id=\"%s\">%s</h4>\n", e(b.id), e(b.text))
		case bPara:
			fmt.Fprintf(w, "<p>%s</p>\n", e(b.text))
		case bCode:
			fmt.Fprintf(w, "<pre><code>%s</code></pre>\n", e(b.text))
		case bFigure:
			figure(b.pic)
		case bList:
			w.WriteString("<ol class=\"narrative\">\n")
			for _, it := range b.items {
				if it.strong {
					fmt.Fprintf(w, "<li class=\"moment\">%s", e(it.text))
					figure(it.pic)
					w.WriteString("</li>\n")
				} else {
					fmt.Fprintf(w, "<li>%s</li>\n", e(it.text))
				}
			}
			w.WriteString("</ol>\n")
		case bTable:
			w.WriteString("<table>\n<thead><tr>")
			for _, h := range b.head {
				fmt.Fprintf(w, "<th>%s</th>", e(h))
			}
			w.WriteString("</tr></thead>\n<tbody>\n")
			for _, row := range b.rows {
				w.WriteString("<tr>")
				for _, c := range row {
					fmt.Fprintf(w, "<td>%s</td>", e(c))
				}
				w.WriteString("</tr>\n")
			}
			w.WriteString("</tbody>\n</table>\n")
		}
	}
	w.WriteString("</body>\n</html>\n")
}

// inlineSVG is a picture as an HTML element: without an XML declaration
// (the picture package writes none; one would be a bogus comment).
func inlineSVG(svg []byte) []byte {
	s := strings.TrimSpace(string(svg))
	if strings.HasPrefix(s, "<?xml") {
		if i := strings.Index(s, "?>"); i >= 0 {
			s = strings.TrimSpace(s[i+2:])
		}
	}
	return []byte(s + "\n")
}

// bb makes text safe in BBCode, which has no escape: a square bracket
// could open a tag, so brackets are written as round ones.
func bb(s string) string {
	return strings.NewReplacer("[", "(", "]", ")").Replace(s)
}

func (p page) writeBBCode(w *bufio.Writer) {
	figure := func(n int) {
		if n < 0 || n >= len(p.pictures) {
			return
		}
		pc := p.pictures[n]
		fmt.Fprintf(w, "[attachment=%d]%s[/attachment]\n[i]%s[/i]\n", n, bb(pc.Name), bb(pc.Caption))
	}
	for _, b := range p.blocks {
		switch b.kind {
		case bTitle:
			fmt.Fprintf(w, "[size=150][b]%s[/b][/size]\n\n", bb(b.text))
		case bHeading:
			fmt.Fprintf(w, "\n[size=125][b]%s[/b][/size]\n\n", bb(b.text))
		case bSubheading:
			fmt.Fprintf(w, "\n[b]%s[/b]\n", bb(b.text))
		case bMinor:
			fmt.Fprintf(w, "\n[i]%s[/i]\n", bb(b.text))
		case bPara:
			fmt.Fprintf(w, "%s\n\n", bb(b.text))
		case bCode:
			fmt.Fprintf(w, "[code]%s[/code]\n", bb(b.text))
		case bFigure:
			figure(b.pic)
		case bList:
			w.WriteString("[list=1]\n")
			for _, it := range b.items {
				if it.strong {
					fmt.Fprintf(w, "[*][b]%s[/b]\n", bb(it.text))
					figure(it.pic)
				} else {
					fmt.Fprintf(w, "[*]%s\n", bb(it.text))
				}
			}
			w.WriteString("[/list]\n")
		case bTable:
			// phpBB has no table: one line per row, the heading's names
			// before each value.
			w.WriteString("[list]\n")
			for _, row := range b.rows {
				var parts []string
				for i, c := range row {
					if c == "" {
						continue
					}
					if i == 0 {
						parts = append(parts, "[b]"+bb(c)+"[/b]")
						continue
					}
					parts = append(parts, bb(b.head[i])+": "+bb(c))
				}
				fmt.Fprintf(w, "[*]%s\n", strings.Join(parts, "; "))
			}
			w.WriteString("[/list]\n")
		}
	}
}

// md escapes what Markdown reads as markup in a text.
var md = strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "<", `\<`, ">", `\>`, "|", `\|`, "#", `\#`)

// mdLine is a text for one line of Markdown: escaped, on one line.
func mdLine(s string) string {
	return md.Replace(strings.Join(strings.Fields(s), " "))
}

func (p page) writeMarkdown(w *bufio.Writer) {
	figure := func(n int, indent string) {
		if n < 0 || n >= len(p.pictures) {
			return
		}
		pc := p.pictures[n]
		fmt.Fprintf(w, "%s![%s](%s)\n", indent, mdLine(pc.Caption), pc.Name)
	}
	for _, b := range p.blocks {
		switch b.kind {
		case bTitle:
			fmt.Fprintf(w, "# %s\n\n", mdLine(b.text))
		case bHeading:
			fmt.Fprintf(w, "## %s\n\n", mdLine(b.text))
		case bSubheading:
			fmt.Fprintf(w, "### %s\n\n", mdLine(b.text))
		case bMinor:
			fmt.Fprintf(w, "#### %s\n\n", mdLine(b.text))
		case bPara:
			fmt.Fprintf(w, "%s\n\n", mdLine(b.text))
		case bCode:
			fmt.Fprintf(w, "```\n%s\n```\n\n", strings.ReplaceAll(b.text, "```", "'''"))
		case bFigure:
			figure(b.pic, "")
			w.WriteString("\n")
		case bList:
			for i, it := range b.items {
				if it.strong {
					fmt.Fprintf(w, "%d. **%s**\n", i+1, mdLine(it.text))
					if it.pic >= 0 {
						w.WriteString("\n")
						figure(it.pic, "   ")
						w.WriteString("\n")
					}
				} else {
					fmt.Fprintf(w, "%d. %s\n", i+1, mdLine(it.text))
				}
			}
			w.WriteString("\n")
		case bTable:
			cells := func(row []string) {
				w.WriteString("|")
				for _, c := range row {
					fmt.Fprintf(w, " %s |", mdLine(c))
				}
				w.WriteString("\n")
			}
			cells(b.head)
			w.WriteString("|")
			for range b.head {
				w.WriteString(" --- |")
			}
			w.WriteString("\n")
			for _, row := range b.rows {
				cells(row)
			}
			w.WriteString("\n")
		}
	}
}

// WritePictures writes each picture as its file through create (a file
// of the folder beside the post): the forum's attachments.
func (r *Report) WritePictures(create func(name string) (io.WriteCloser, error)) error {
	return writePictures(r.Pictures, create)
}

// writePictures paints the PNG pictures a batch at a time, one per core
// (painting is most of the time of a post's pictures: about 20 ms each
// here), and writes each batch in the report's order.
func writePictures(pictures []Picture, create func(name string) (io.WriteCloser, error)) error {
	batch := max(1, runtime.GOMAXPROCS(0))
	data := make([][]byte, batch)
	errs := make([]error, batch)
	for start := 0; start < len(pictures); start += batch {
		part := pictures[start:min(start+batch, len(pictures))]
		var wg sync.WaitGroup
		for i, p := range part {
			data[i], errs[i] = p.SVG, nil
			if strings.HasSuffix(p.Name, "."+PNG) {
				wg.Go(func() { data[i], errs[i] = picture.PNG(p.SVG) })
			}
		}
		wg.Wait()
		for i, p := range part {
			if errs[i] != nil {
				return fmt.Errorf("%s: %w", p.Name, errs[i])
			}
			f, err := create(p.Name)
			if err != nil {
				return err
			}
			if _, err := f.Write(data[i]); err != nil {
				f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
		}
	}
	return nil
}
