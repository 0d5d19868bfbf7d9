package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The documents' references are checked against the repository (see
// docs/architecture.md, "The documents' test"): every link between
// documents and every anchor it names; every document a text mentions
// (`docs/dice.md`, "audit.md"); every repository path in backquotes
// (`rules/charge.go`, `web/static/`); every Go name in backquotes that
// names a package of this module (`campaign.Service.Standings`,
// `(*sqlite.DB).ApplyBatch`, `projections/projtest.Fill`), and every test
// named (`TestBrowserPlayTurn`); and the "may import" column of
// architecture.md's package table against the packages' imports. A
// missing file, anchor or name fails the test.

const module = "github.com/clubledger/ledger"

// root is the repository's folder.
const root = ".."

// mdDoc is one Markdown document, read.
type mdDoc struct {
	path  string // relative to root, slash-separated
	text  string
	prose []proseLine // lines outside fenced code blocks
}

type proseLine struct {
	n    int
	text string
}

func readDocs(t *testing.T) []*mdDoc {
	t.Helper()
	paths := []string{"README.md"}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
			paths = append(paths, "docs/"+e.Name())
		}
	}
	var docs []*mdDoc
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		d := &mdDoc{path: p, text: string(b)}
		fenced := false
		for i, l := range strings.Split(d.text, "\n") {
			if strings.HasPrefix(strings.TrimLeft(l, " "), "```") {
				fenced = !fenced
				continue
			}
			if !fenced {
				d.prose = append(d.prose, proseLine{i + 1, l})
			}
		}
		docs = append(docs, d)
	}
	return docs
}

// anchors are the GitHub anchors of a document's headings.
func (d *mdDoc) anchors() map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range d.prose {
		if !strings.HasPrefix(l.text, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(l.text, "#"))
		slug := slugOf(h)
		if n := seen[slug]; n > 0 {
			out[slug+"-"+strconv.Itoa(n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// slugOf is GitHub's anchor for a heading: lower case; letters, digits,
// spaces, '-' and '_' kept, spaces made '-'; everything else dropped.
func slugOf(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

var (
	mdLink       = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)
	mdMention    = regexp.MustCompile(`(?:\.\./|docs/)?\b[A-Za-z0-9_-]+\.md\b`)
	codeSpan     = regexp.MustCompile("`([^`]+)`")
	forbidden    = []string{"/work/shared", "RULES.md", "PRODUCT.md"}
	goName       = regexp.MustCompile(`^\(?(\*?)([a-z][a-z0-9]*(?:/[a-z][a-z0-9]*)*)\.([A-Z][A-Za-z0-9_]*)\)?(?:\.([A-Za-z_][A-Za-z0-9_]*))?(?:\(\))?$`)
	testName     = regexp.MustCompile(`^((?:Test|Benchmark|Fuzz)[A-Z][A-Za-z0-9_]*)(?:/\S*)?$`)
	repoPathLike = regexp.MustCompile(`^[A-Za-z0-9_.*-]+(?:/[A-Za-z0-9_.*-]*)+$`)
	goFileLike   = regexp.MustCompile(`^[A-Za-z0-9_*]+\.go$`)
	// placeholder is a run of N standing for a number in a path
	// (`config/nats/nats-N.conf`, `NNNN_name.sql`).
	placeholder = regexp.MustCompile(`(^|[^A-Za-z])N+([^A-Za-z]|$)`)
)

// TestDocumentLinks: every link of every document points at a file that
// exists, and at a heading it has; every document mentioned exists; no
// document points outside the repository.
func TestDocumentLinks(t *testing.T) {
	docs := readDocs(t)
	byPath := map[string]*mdDoc{}
	for _, d := range docs {
		byPath[d.path] = d
	}
	for _, d := range docs {
		for _, f := range forbidden {
			if strings.Contains(d.text, f) {
				t.Errorf("%s: mentions %s, which is not in the repository (the rules are docs/rules.md, the principles docs/principles.md)", d.path, f)
			}
		}
		dir := path.Dir(d.path)
		for _, l := range d.prose {
			for _, m := range mdLink.FindAllStringSubmatch(l.text, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				full := d.path
				if file != "" {
					full = path.Clean(path.Join(dir, file))
					if _, err := os.Stat(filepath.Join(root, full)); err != nil {
						t.Errorf("%s:%d: link to %s: no such file", d.path, l.n, target)
						continue
					}
				}
				if anchor == "" {
					continue
				}
				to := byPath[full]
				if to == nil {
					t.Errorf("%s:%d: link to %s: an anchor in a file that is not a document", d.path, l.n, target)
					continue
				}
				if !to.anchors()[anchor] {
					t.Errorf("%s:%d: link to %s: %s has no heading with that anchor", d.path, l.n, target, full)
				}
			}
			reported := map[string]bool{}
			for _, m := range mdMention.FindAllString(l.text, -1) {
				if !reported[m] && !mentionExists(dir, m) {
					reported[m] = true
					t.Errorf("%s:%d: mentions %s: no such document", d.path, l.n, m)
				}
			}
		}
	}
}

// mentionExists says whether a document named in a text exists beside the
// one that names it, at the repository's root or in docs/.
func mentionExists(dir, name string) bool {
	for _, p := range []string{path.Join(dir, name), name, path.Join("docs", name)} {
		if _, err := os.Stat(filepath.Join(root, p)); err == nil {
			return true
		}
	}
	return false
}

// goDecls is what the repository's Go files declare, by package folder.
type goDecls struct {
	// names: folder -> top-level names (funcs, types, vars, consts).
	names map[string]map[string]bool
	// members: folder -> type -> its methods and struct fields.
	members map[string]map[string]map[string]bool
	// tests: every Test, Benchmark and Fuzz function.
	tests map[string]bool
	// imports: folder -> the module's packages its non-test files import.
	imports map[string]map[string]bool
	// files: base name -> true, for every file of the repository.
	files map[string]bool
	// paths: every file's and folder's path in the repository.
	paths map[string]bool
}

func loadGo(t *testing.T) *goDecls {
	t.Helper()
	g := &goDecls{
		names:   map[string]map[string]bool{},
		members: map[string]map[string]map[string]bool{},
		tests:   map[string]bool{},
		imports: map[string]map[string]bool{},
		files:   map[string]bool{},
		paths:   map[string]bool{},
	}
	fset := token.NewFileSet()
	for _, rel := range repoFiles(t) {
		for d := rel; d != "."; d = path.Dir(d) {
			g.paths[d] = true
		}
		skip := false
		for _, part := range strings.Split(path.Dir(rel), "/") {
			if strings.HasPrefix(part, ".") && part != "." || part == "testdata" || part == "node_modules" {
				skip = true
			}
		}
		if skip {
			continue
		}
		g.files[path.Base(rel)] = true
		if !strings.HasSuffix(rel, ".go") {
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(rel))
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		dir := path.Dir(rel)
		test := strings.HasSuffix(p, "_test.go")
		if g.names[dir] == nil {
			g.names[dir] = map[string]bool{}
			g.members[dir] = map[string]map[string]bool{}
			g.imports[dir] = map[string]bool{}
		}
		member := func(typ, name string) {
			if g.members[dir][typ] == nil {
				g.members[dir][typ] = map[string]bool{}
			}
			g.members[dir][typ][name] = true
		}
		if !test {
			for _, im := range f.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				if rest, ok := strings.CutPrefix(p, module+"/"); ok {
					g.imports[dir][rest] = true
				}
			}
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Recv == nil {
					g.names[dir][decl.Name.Name] = true
					if test && testName.MatchString(decl.Name.Name) {
						g.tests[decl.Name.Name] = true
					}
					continue
				}
				typ := decl.Recv.List[0].Type
				for {
					switch x := typ.(type) {
					case *ast.StarExpr:
						typ = x.X
						continue
					case *ast.IndexExpr:
						typ = x.X
						continue
					case *ast.IndexListExpr:
						typ = x.X
						continue
					}
					break
				}
				if id, ok := typ.(*ast.Ident); ok {
					member(id.Name, decl.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						g.names[dir][spec.Name.Name] = true
						switch ty := spec.Type.(type) {
						case *ast.StructType:
							for _, f := range ty.Fields.List {
								for _, n := range f.Names {
									member(spec.Name.Name, n.Name)
								}
								if len(f.Names) == 0 { // embedded
									if id, ok := f.Type.(*ast.Ident); ok {
										member(spec.Name.Name, id.Name)
									}
								}
							}
						case *ast.InterfaceType:
							for _, f := range ty.Methods.List {
								for _, n := range f.Names {
									member(spec.Name.Name, n.Name)
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							g.names[dir][n.Name] = true
						}
					}
				}
			}
		}
	}
	return g
}

// repoFiles are the repository's files, slash-separated and relative to
// root: those git tracks and those it would take (new, not ignored), that
// exist. What running the ledger leaves in a checkout is not the
// repository's: the README's commands make ./data (a live or dead
// data/ledger.sock in it) and .gitignore names it.
func repoFiles(t *testing.T) []string {
	t.Helper()
	// safe.directory: CI may run as root in a clone another user owns.
	cmd := exec.Command("git", "-c", "safe.directory=*", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("git ls-files: %v %s: the documents' test lists the repository's files with git; run it in a git checkout", err, stderr)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f == "" {
			continue
		}
		// A tracked file deleted in the working tree is gone.
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(f))); err == nil {
			files = append(files, f)
		}
	}
	if len(files) < 100 {
		t.Fatalf("git lists %d files of the repository: not the repository's folder?", len(files))
	}
	return files
}

// packages are the folders of the module whose import path ends in pkg
// ("audit", "campaign/audit").
func (g *goDecls) packages(pkg string) []string {
	var out []string
	for dir := range g.names {
		if dir == pkg || strings.HasSuffix(dir, "/"+pkg) {
			out = append(out, dir)
		}
	}
	sort.Strings(out)
	return out
}

// topDirs are the repository's top-level folders: a path in backquotes
// starting with one of them is the repository's.
func topDirs(g *goDecls) map[string]bool {
	out := map[string]bool{}
	for p := range g.paths {
		if top, _, ok := strings.Cut(p, "/"); ok && !strings.HasPrefix(top, ".") {
			out[top] = true
		}
	}
	out[".ci"] = true
	return out
}

// TestDocumentReferences: every repository path, Go name and test that a
// document names in backquotes exists.
func TestDocumentReferences(t *testing.T) {
	docs := readDocs(t)
	g := loadGo(t)
	tops := topDirs(g)
	checked := 0
	for _, d := range docs {
		for _, l := range d.prose {
			for _, m := range codeSpan.FindAllStringSubmatch(l.text, -1) {
				span := strings.TrimSpace(m[1])
				where := d.path + ":" + strconv.Itoa(l.n)
				var pkgs []string
				if sm := goName.FindStringSubmatch(span); sm != nil {
					pkgs = g.packages(sm[2])
				}
				switch {
				case len(pkgs) > 0:
					sm := goName.FindStringSubmatch(span)
					checked++
					if !g.declares(pkgs, sm[3], sm[4]) {
						t.Errorf("%s: `%s`: %s declares no %s (looked in %s)", where, span, sm[2], strings.Trim(sm[3]+"."+sm[4], "."), strings.Join(pkgs, ", "))
					}
				case repoPathLike.MatchString(span) && tops[strings.Split(span, "/")[0]]:
					checked++
					pattern := placeholder.ReplaceAllString(strings.TrimSuffix(span, "/"), "${1}*${2}")
					if !globAny(g.paths, pattern) {
						t.Errorf("%s: `%s`: no such file or folder in the repository", where, span)
					}
				case goFileLike.MatchString(span):
					checked++
					if strings.Contains(span, "*") {
						if !globAny(g.files, span) {
							t.Errorf("%s: `%s`: no file of the repository matches", where, span)
						}
					} else if !g.files[span] {
						t.Errorf("%s: `%s`: no such file in the repository", where, span)
					}
				case testName.MatchString(span):
					checked++
					name := testName.FindStringSubmatch(span)[1]
					if !g.tests[name] {
						t.Errorf("%s: `%s`: no such test in the repository", where, span)
					}
				}
				// Any other Go name belongs to another module (math.Hypot,
				// server.ProcessConfigFile), and is not checked.
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d references checked: the test no longer reads the documents", checked)
	}
}

func globAny(files map[string]bool, pattern string) bool {
	for f := range files {
		if ok, _ := path.Match(pattern, f); ok {
			return true
		}
	}
	return false
}

// declares says whether one of pkgs declares name, and member of it when
// member is not empty (a method, or a struct's or an interface's field).
func (g *goDecls) declares(pkgs []string, name, member string) bool {
	for _, p := range pkgs {
		if !g.names[p][name] {
			continue
		}
		if member == "" || g.members[p][name][member] {
			return true
		}
	}
	return false
}

// TestArchitectureImports: each package of architecture.md's table imports
// from this module only what its "may import" column lists.
func TestArchitectureImports(t *testing.T) {
	b, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	g := loadGo(t)
	inTable := false
	rows := 0
	paren := regexp.MustCompile(`\([^)]*\)`)
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "| package | role | may import |") {
			inTable = true
			continue
		}
		if !inTable || strings.HasPrefix(l, "|---") {
			continue
		}
		if !strings.HasPrefix(l, "|") {
			if rows > 0 {
				break
			}
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		if len(cells) < 3 {
			continue
		}
		pkg := strings.TrimSuffix(strings.Trim(strings.TrimSpace(cells[0]), "`"), "/")
		if _, ok := g.names[pkg]; !ok {
			t.Errorf("architecture.md: package %s is not in the repository", pkg)
			continue
		}
		rows++
		may := map[string]bool{}
		for _, item := range strings.Split(paren.ReplaceAllString(cells[len(cells)-1], ""), ",") {
			item = strings.TrimSuffix(strings.Trim(strings.TrimSpace(item), "`"), "/")
			may[item] = true
		}
		if may["everything"] {
			continue
		}
		var extra []string
		for im := range g.imports[pkg] {
			if !may[im] {
				extra = append(extra, im)
			}
		}
		slices.Sort(extra)
		if len(extra) > 0 {
			t.Errorf("architecture.md: %s imports %s, which its row does not list", pkg, strings.Join(extra, ", "))
		}
	}
	if rows < 10 {
		t.Errorf("architecture.md: only %d rows of the package table read", rows)
	}
}

// glossaryChecked are the glossary's words whose first appearance in the
// README and in the organiser's guide must link to their entry.
var glossaryChecked = []string{
	"projection", "vault", "audience", "dice period", "commitment", "head",
	"principal", "operator", "door", "nonce", "signature", "key file",
	"token", "data folder", "sealed", "hash chain", "command id", "dry run",
	"admin token",
}

// TestGlossaryLinked: the glossary has an entry for each word above, and
// where the word first appears in README.md and docs/club.md (outside
// code and headings), it links to that entry.
func TestGlossaryLinked(t *testing.T) {
	docs := readDocs(t)
	var glossary *mdDoc
	for _, d := range docs {
		if d.path == "docs/glossary.md" {
			glossary = d
		}
	}
	if glossary == nil {
		t.Fatal("docs/glossary.md is missing")
	}
	anchors := glossary.anchors()
	for _, w := range glossaryChecked {
		if !anchors[slugOf(w)] {
			t.Errorf("docs/glossary.md has no entry %q", w)
		}
	}
	for _, d := range docs {
		if d.path != "README.md" && d.path != "docs/club.md" {
			continue
		}
		var b strings.Builder
		for _, l := range d.prose {
			if strings.HasPrefix(l.text, "#") {
				b.WriteString(" ")
				continue
			}
			b.WriteString(codeSpan.ReplaceAllStringFunc(l.text, func(s string) string { return strings.Repeat(" ", len(s)) }))
			b.WriteString(" ")
		}
		text := b.String()
		links := mdLink.FindAllStringSubmatchIndex(text, -1)
		for _, w := range glossaryChecked {
			re := regexp.MustCompile(`(?i)\b` + strings.ReplaceAll(regexp.QuoteMeta(w), " ", `\s+`) + `s?\b`)
			loc := re.FindStringIndex(text)
			if loc == nil {
				continue
			}
			linked := false
			for _, l := range links {
				if l[0] <= loc[0] && loc[1] <= l[1] && strings.Contains(text[l[2]:l[3]], "glossary.md#"+slugOf(w)) {
					linked = true
				}
			}
			if !linked {
				from := max(0, loc[0]-40)
				t.Errorf("%s: %q first appears unlinked to the glossary: …%s…", d.path, w, strings.Join(strings.Fields(text[from:min(len(text), loc[1]+40)]), " "))
			}
		}
	}
}
