package i18n

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The English of refusals and audit findings is printed by code this
// package does not own. These helpers read that code's Go sources and list
// every message it can print, as (family, format) pairs, so that the
// catalogues are checked against the code itself, never against a list
// kept by hand.

// sourcePhrase is a message format found in the sources.
type sourcePhrase struct {
	Family string // "refusal.unit_inactive"
	Format string // "unit %s is %s and cannot act"
	Pos    string // file:line
	Args   []string
}

// parseDir parses the non-test Go files of dir (relative to the module
// root).
func parseDir(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	return out
}

// stringValues returns the texts an expression may have: a literal's, each
// side of a + combined, a local variable's literal assignments in fn; any
// other expression is a value printed with %s.
func stringValues(e ast.Expr, fn *ast.FuncDecl) []string {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind == token.STRING {
			s, err := strconv.Unquote(x.Value)
			if err == nil {
				return []string{s}
			}
		}
	case *ast.ParenExpr:
		return stringValues(x.X, fn)
	case *ast.BinaryExpr:
		if x.Op == token.ADD {
			var out []string
			for _, a := range stringValues(x.X, fn) {
				for _, b := range stringValues(x.Y, fn) {
					out = append(out, a+b)
				}
			}
			return out
		}
	case *ast.Ident:
		if vals := assignedLiterals(x, fn); len(vals) > 0 {
			return vals
		}
	}
	return []string{"%s"}
}

// assignedLiterals returns the string literals the local variable id may
// hold where it is used: those of its declaration (the innermost := in a
// block that holds the use) and of the assignments to it in that block
// before the use.
func assignedLiterals(id *ast.Ident, fn *ast.FuncDecl) []string {
	if fn == nil {
		return nil
	}
	type assign struct {
		as    *ast.AssignStmt
		i     int
		block ast.Node
	}
	var all []assign
	var blocks []ast.Node
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		ast.Inspect(n, func(c ast.Node) bool {
			if c == nil {
				return true
			}
			if b, ok := c.(*ast.BlockStmt); ok && c != n {
				blocks = append(blocks, b)
				for _, st := range b.List {
					walk(st)
				}
				blocks = blocks[:len(blocks)-1]
				return false
			}
			if as, ok := c.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) && as.Pos() < id.Pos() {
				for i, l := range as.Lhs {
					if lid, ok := l.(*ast.Ident); ok && lid.Name == id.Name {
						var b ast.Node = fn.Body
						if len(blocks) > 0 {
							b = blocks[len(blocks)-1]
						}
						all = append(all, assign{as, i, b})
					}
				}
			}
			return true
		})
	}
	walk(fn.Body)
	var decl *assign
	for k := range all {
		a := &all[k]
		if a.as.Tok == token.DEFINE && a.block.Pos() <= id.Pos() && id.Pos() <= a.block.End() {
			decl = a
		}
	}
	if decl == nil {
		return nil
	}
	var out []string
	for _, a := range all {
		if a.as.Pos() < decl.as.Pos() || a.as.Pos() < decl.block.Pos() || a.as.End() > decl.block.End() {
			continue
		}
		if lit, ok := a.as.Rhs[a.i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil {
				out = append(out, s)
			}
		}
	}
	return out
}

// exprString is a short text of an expression, for messages.
func exprString(fset *token.FileSet, e ast.Expr) string {
	var b strings.Builder
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Ident:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(x.Name)
		case *ast.BasicLit:
			b.WriteString(x.Value)
		}
		return true
	})
	return b.String()
}

// eachCall calls f for every call in the files, with its enclosing
// function.
func eachNode(files []*ast.File, f func(n ast.Node, fn *ast.FuncDecl)) {
	for _, file := range files {
		for _, d := range file.Decls {
			fn, _ := d.(*ast.FuncDecl)
			ast.Inspect(d, func(n ast.Node) bool {
				if n != nil {
					f(n, fn)
				}
				return true
			})
		}
	}
}

// refusalSources lists every refusal the rules and the campaign service
// can give: each refuse(rule, "code", format, ...) of package rules, each
// rules.Refuse(rule, "code", format, ...) of the campaign and each wrap
// (family refusal.wrap), with its message's formats. A refusal made by
// hand (rules.Refusal{..., Message: ...}) or whose Message is set by hand
// fails: it would carry no format.
func refusalSources(t *testing.T) []sourcePhrase {
	t.Helper()
	fset := token.NewFileSet()
	var out []sourcePhrase
	add := func(code string, formats []string, pos token.Pos, args []string) {
		for _, f := range formats {
			out = append(out, sourcePhrase{Family: "refusal." + code, Format: f, Pos: shortPos(fset, pos), Args: args})
		}
	}
	for _, dir := range []string{"rules", "campaign"} {
		eachNode(parseDir(t, fset, dir), func(n ast.Node, fn *ast.FuncDecl) {
			if fn != nil && dir == "rules" && (fn.Name.Name == "refuse" || fn.Name.Name == "Refuse" || fn.Name.Name == "wrap") {
				return // the makers themselves
			}
			switch x := n.(type) {
			case *ast.CallExpr:
				if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "wrap" && len(x.Args) > 0 {
					// r.wrap("flank march %d cannot enter: %s", m.N,
					// r.copy()): a refusal's message wrapped (any
					// code's), family refusal.wrap.
					for _, f := range stringValues(x.Args[0], fn) {
						out = append(out, sourcePhrase{Family: "refusal.wrap", Format: f, Pos: shortPos(fset, x.Pos())})
					}
					return
				}
				if !isRefuse(x.Fun) || len(x.Args) < 3 {
					return
				}
				code, ok := literal(x.Args[1])
				if !ok {
					t.Errorf("%s: refuse with a code that is not a literal", shortPos(fset, x.Pos()))
					return
				}
				var args []string
				for _, a := range x.Args[3:] {
					args = append(args, exprString(fset, a))
				}
				add(code, stringValues(x.Args[2], fn), x.Pos(), args)
			case *ast.AssignStmt:
				// A refusal's message is made by refuse, Refuse and wrap
				// only: set otherwise, it would carry no format.
				for _, l := range x.Lhs {
					if sel, ok := l.(*ast.SelectorExpr); ok && sel.Sel.Name == "Message" {
						t.Errorf("%s: a refusal's Message set by hand: make it with refuse, rules.Refuse or wrap, which keep its format and values", shortPos(fset, x.Pos()))
					}
				}
			case *ast.CompositeLit:
				// A refusal made by hand with a Message has no format to
				// be said from in another language.
				if !isRefusalType(x.Type) {
					return
				}
				for _, el := range x.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if key, _ := kv.Key.(*ast.Ident); key != nil && key.Name == "Message" {
							t.Errorf("%s: a refusal made by hand: make it with refuse or rules.Refuse, which keep its format and values", shortPos(fset, x.Pos()))
						}
					}
				}
			}
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Family < out[j].Family })
	return out
}

// auditSources lists the audit's findings (a.add and a.fail formats), its
// check summaries (c.summarize(format, ...)) and the parts of its messages
// (phrase.audit.part: each rules.Words{Format: ...} of campaign/audit, and
// notSigned's formats, phrase.audit.not_signed), each kept with its values
// for i18n to say by its format (Finding.Words, Check.SummaryWords); the
// reasons an export file cannot be read (formatError's formats,
// phrase.audit.export_file) and the frame they are said in
// (FormatError.Said, phrase.audit.export_line); a failed audit's error
// (Error.Said, Finding.Said: phrase.audit.failed). A summary set by hand
// (.Summary = ...) or a FormatError's Reason fails: it would carry no
// format.
func auditSources(t *testing.T) []sourcePhrase {
	t.Helper()
	fset := token.NewFileSet()
	var out []sourcePhrase
	eachNode(parseDir(t, fset, "campaign/audit"), func(n ast.Node, fn *ast.FuncDecl) {
		switch x := n.(type) {
		case *ast.CompositeLit:
			if isTypeNamed(x.Type, "FormatError") {
				// A file's FormatError is made by formatError, which
				// keeps its reason's format and values.
				for _, el := range x.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if key, _ := kv.Key.(*ast.Ident); key != nil && key.Name == "Reason" && (fn == nil || fn.Name.Name != "formatError") {
							t.Errorf("%s: a FormatError's Reason set by hand: make it with formatError, which keeps its format and values", shortPos(fset, x.Pos()))
						}
					}
				}
				return
			}
			if !isTypeNamed(x.Type, "Words") {
				return
			}
			family := auditPart
			if fn != nil && fn.Name.Name == "Said" && fn.Recv != nil && len(fn.Recv.List) == 1 {
				switch {
				case isTypeNamed(fn.Recv.List[0].Type, "FormatError"):
					family = "phrase.audit.export_line" // a FormatError's frame
				case isTypeNamed(fn.Recv.List[0].Type, "Error"), isTypeNamed(fn.Recv.List[0].Type, "Finding"):
					family = "phrase.audit.failed" // a failed audit's error
				}
			}
			for _, el := range x.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					if key, _ := kv.Key.(*ast.Ident); key != nil && key.Name == "Format" {
						if f, ok := literal(kv.Value); ok {
							out = append(out, sourcePhrase{Family: family, Format: f, Pos: shortPos(fset, x.Pos())})
						}
					}
				}
			}
		case *ast.CallExpr:
			if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "formatError" && len(x.Args) > 2 {
				// An export file that cannot be read: its reason
				// (FormatError.Words), phrase.audit.export_file.
				var args []string
				for _, a := range x.Args[3:] {
					args = append(args, exprString(fset, a))
				}
				for _, f := range stringValues(x.Args[2], fn) {
					out = append(out, sourcePhrase{Family: "phrase.audit.export_file", Format: f, Pos: shortPos(fset, x.Pos()), Args: args})
				}
				return
			}
			if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "notSigned" && len(x.Args) > 0 {
				for _, f := range stringValues(x.Args[0], fn) {
					if f == "%v" || f == "%s" {
						continue // an error's own words (sayPart)
					}
					out = append(out, sourcePhrase{Family: "phrase.audit.not_signed", Format: f, Pos: shortPos(fset, x.Pos())})
				}
				return
			}
			sel, ok := x.Fun.(*ast.SelectorExpr)
			if !ok {
				return
			}
			if sel.Sel.Name == "summarize" && len(x.Args) > 0 {
				if id, isIdent := x.Args[0].(*ast.Ident); isIdent && len(assignedLiterals(id, fn)) == 0 {
					return
				}
				var args []string
				for _, a := range x.Args[1:] {
					args = append(args, exprString(fset, a))
				}
				for _, f := range stringValues(x.Args[0], fn) {
					out = append(out, sourcePhrase{Family: "phrase.audit.summary", Format: f, Pos: shortPos(fset, x.Pos()), Args: args})
				}
				return
			}
			i := map[string]int{"add": 4, "fail": 2}[sel.Sel.Name]
			if i == 0 || len(x.Args) <= i {
				return
			}
			if id, isIdent := x.Args[i].(*ast.Ident); isIdent && len(assignedLiterals(id, fn)) == 0 {
				return // a.add called on by a.fail with its format
			}
			var args []string
			for _, a := range x.Args[i+1:] {
				args = append(args, exprString(fset, a))
			}
			for _, f := range stringValues(x.Args[i], fn) {
				out = append(out, sourcePhrase{Family: "phrase.audit.finding", Format: f, Pos: shortPos(fset, x.Pos()), Args: args})
			}
		case *ast.AssignStmt:
			if len(x.Lhs) != 1 || len(x.Rhs) != 1 {
				return
			}
			sel, ok := x.Lhs[0].(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Summary" || fn != nil && fn.Name.Name == "summarize" {
				return
			}
			t.Errorf("%s: a check's Summary set by hand: set it with summarize, which keeps its format and values", shortPos(fset, x.Pos()))
		}
	})
	return out
}

// auditPart is the family of auditSources' parts: the format of a part
// must be one of a phrase.audit.* family's, other than the findings' and
// the summaries'.
const auditPart = "phrase.audit.part"

func literal(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// isRefuse: refuse (the rules') or rules.Refuse (the campaign's).
func isRefuse(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name == "refuse" || x.Name == "Refuse"
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		return ok && id.Name == "rules" && x.Sel.Name == "Refuse"
	}
	return false
}

func isRefusalType(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name == "Refusal"
	case *ast.SelectorExpr:
		return x.Sel.Name == "Refusal"
	}
	return false
}

func isSprintf(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Sprintf"
}

func shortPos(fset *token.FileSet, p token.Pos) string {
	pos := fset.Position(p)
	return strings.TrimPrefix(filepath.ToSlash(pos.Filename), "../") + ":" + strconv.Itoa(pos.Line)
}

// detailSources lists every detail of an error that is not a refusal, as
// the code makes it with its format (Catalogue.Detail): the campaign's
// forbid(p, format, ...) (detail.forbidden), campaign.Invalid(field,
// format, ...) and an InvalidInput made with a literal Reason
// (detail.input), the frame an InvalidInput is said in
// (campaign.InvalidFormat: detail.bad_request) and an unknown campaign's
// (detail.not_found); the door's notFound, invalid and forbidden
// (detail.not_found, detail.bad_request, detail.forbidden) and every
// app.Errorf(kind, "code", format, ...) of the door and the edges
// (detail.<code>); every importFailed(audit, format, ...) of the door
// (detail.import_refused, detail.import_exists) and the words of why its
// audit fails (importAudit's, detail.import_audit); the words a value of theirs is picked from (what is
// the operator's, a map of words: detail.words). An InvalidInput whose Reason is printed by hand
// (fmt.Sprintf) fails: it would carry no format.
func detailSources(t *testing.T) []sourcePhrase {
	t.Helper()
	fset := token.NewFileSet()
	var out []sourcePhrase
	words := func(e ast.Expr, pos token.Pos) {
		if s, ok := literal(e); ok {
			out = append(out, sourcePhrase{Family: "detail.words", Format: s, Pos: shortPos(fset, pos)})
		}
	}
	add := func(family string, e ast.Expr, fn *ast.FuncDecl, pos token.Pos, rest []ast.Expr) {
		var args []string
		for _, a := range rest {
			args = append(args, exprString(fset, a))
			// A value picked from a map of words (map[bool]string{true:
			// "a battle", ...}[x]) is said as words of its own.
			if ix, ok := a.(*ast.IndexExpr); ok {
				if cl, ok := ix.X.(*ast.CompositeLit); ok {
					for _, el := range cl.Elts {
						if kv, ok := el.(*ast.KeyValueExpr); ok {
							words(kv.Value, kv.Pos())
						}
					}
				}
			}
		}
		for _, f := range stringValues(e, fn) {
			if f == "" {
				continue // no detail
			}
			out = append(out, sourcePhrase{Family: family, Format: f, Pos: shortPos(fset, pos), Args: args})
		}
	}
	for _, dir := range []string{"campaign", "app", "web", "cmd/ledger", "config"} {
		eachNode(parseDir(t, fset, dir), func(n ast.Node, fn *ast.FuncDecl) {
			if fn != nil && dir == "app" && fn.Recv == nil && (fn.Name.Name == "notFound" || fn.Name.Name == "invalid" || fn.Name.Name == "forbidden" || fn.Name.Name == "Errorf") {
				return // the makers themselves
			}
			switch x := n.(type) {
			case *ast.CallExpr:
				name := ""
				switch f := x.Fun.(type) {
				case *ast.Ident:
					name = f.Name
				case *ast.SelectorExpr:
					if id, ok := f.X.(*ast.Ident); ok && (id.Name == "campaign" || id.Name == "app") || f.Sel.Name == "operatorOnly" {
						name = f.Sel.Name
					}
				}
				switch {
				case dir == "config" && name == "problem" && len(x.Args) >= 1:
					// A problem of the configuration (config.Problem),
					// said by the CLI's exit as a usage error's detail.
					add("detail.usage", x.Args[0], fn, x.Pos(), x.Args[1:])
				case dir == "cmd/ledger" && name == "usagef" && len(x.Args) >= 1:
					// The CLI's own usage errors (said by cmd/ledger's exit).
					add("detail.usage", x.Args[0], fn, x.Pos(), x.Args[1:])
				case dir == "cmd/ledger" && name == "joinWords" && len(x.Args) == 2:
					// The words between a list's elements in a usage error.
					add("detail.usage", x.Args[1], fn, x.Pos(), nil)
				case name == "operatorOnly" && dir == "app" && len(x.Args) >= 2:
					// What is the operator's: words of its own.
					words(x.Args[1], x.Pos())
				case name == "importFailed" && dir == "app" && fn != nil && fn.Name.Name != "importFailed" && len(x.Args) >= 2:
					// An import refused (detail.import_refused) or of a
					// battle this ledger has (detail.import_exists).
					family := "detail.import_exists"
					if id, ok := x.Args[0].(*ast.Ident); ok && id.Name == "true" {
						family = "detail.import_refused"
					}
					add(family, x.Args[1], fn, x.Pos(), x.Args[2:])
				case name == "forbid" && dir == "campaign" && len(x.Args) >= 2:
					add("detail.forbidden", x.Args[1], fn, x.Pos(), x.Args[2:])
				case name == "Invalid" && dir == "campaign" && isLimitFormat(x.Args[1]):
					// A string's limit, said with the format its limit
					// literal holds (below).
				case name == "Invalid" && (dir == "campaign" || dir == "app") && len(x.Args) >= 2:
					add("detail.input", x.Args[1], fn, x.Pos(), x.Args[2:])
				case dir == "app" && (name == "notFound" || name == "invalid" || name == "forbidden") && len(x.Args) >= 1:
					family := map[string]string{"notFound": "detail.not_found", "invalid": "detail.bad_request", "forbidden": "detail.forbidden"}[name]
					add(family, x.Args[0], fn, x.Pos(), x.Args[1:])
				case name == "Errorf" && (dir != "campaign") && len(x.Args) >= 3:
					code, ok := literal(x.Args[1])
					if !ok {
						t.Errorf("%s: app.Errorf with a code that is not a literal", shortPos(fset, x.Pos()))
						return
					}
					add("detail."+code, x.Args[2], fn, x.Pos(), x.Args[3:])
				}
			case *ast.CompositeLit:
				if dir == "app" && fn != nil && fn.Name.Name == "importAudit" && isTypeNamed(x.Type, "Words") {
					// Why an import's audit fails, and what to do.
					for _, el := range x.Elts {
						if kv, ok := el.(*ast.KeyValueExpr); ok {
							if key, _ := kv.Key.(*ast.Ident); key != nil && key.Name == "Format" {
								add("detail.import_audit", kv.Value, fn, x.Pos(), nil)
							}
						}
					}
					return
				}
				if dir == "cmd/ledger" && isTypeNamed(x.Type, "Words") {
					// A usage error's value said by words of its own.
					for _, el := range x.Elts {
						if kv, ok := el.(*ast.KeyValueExpr); ok {
							if key, _ := kv.Key.(*ast.Ident); key != nil && key.Name == "Format" {
								if _, ok := literal(kv.Value); ok {
									add("detail.usage", kv.Value, fn, x.Pos(), nil)
								}
							}
						}
					}
					return
				}
				if dir == "campaign" && isTypeNamed(x.Type, "limit") && len(x.Elts) > 0 {
					// A string's limit (campaign's checkString): its
					// format and values, said by campaign.Invalid.
					add("detail.input", x.Elts[0], fn, x.Pos(), x.Elts[1:])
					return
				}
				if dir == "app" && isTypeNamed(x.Type, "ImportFailed") && (fn == nil || fn.Name.Name != "importFailed") {
					t.Errorf("%s: an ImportFailed made by hand: make it with importFailed, which keeps its format and values", shortPos(fset, x.Pos()))
					return
				}
				if !isTypeNamed(x.Type, "InvalidInput") {
					return
				}
				for _, el := range x.Elts {
					kv, ok := el.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					if key, _ := kv.Key.(*ast.Ident); key == nil || key.Name != "Reason" {
						continue
					}
					if _, ok := literal(kv.Value); ok {
						add("detail.input", kv.Value, fn, x.Pos(), nil)
					} else if call, ok := kv.Value.(*ast.CallExpr); ok && isSprintf(call) {
						t.Errorf("%s: an InvalidInput's Reason printed by hand: make it with campaign.Invalid, which keeps its format and values", shortPos(fset, x.Pos()))
					}
				}
			case *ast.ValueSpec:
				for i, id := range x.Names {
					if dir == "campaign" && id.Name == "InvalidFormat" && i < len(x.Values) {
						add("detail.bad_request", x.Values[i], fn, x.Pos(), nil)
					}
				}
			case *ast.FuncDecl:
				// An unknown campaign says the words of its Why.
				if dir == "campaign" && x.Name.Name == "Why" && x.Recv != nil && len(x.Recv.List) == 1 && isTypeNamed(x.Recv.List[0].Type, "UnknownCampaign") {
					ast.Inspect(x.Body, func(m ast.Node) bool {
						if kv, ok := m.(*ast.KeyValueExpr); ok {
							if key, _ := kv.Key.(*ast.Ident); key != nil && key.Name == "Format" {
								add("detail.not_found", kv.Value, x, kv.Pos(), nil)
							}
						}
						return true
					})
				}
			}
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Family < out[j].Family })
	return out
}

// isTypeNamed: name, pkg.name, or a pointer to either.
// isLimitFormat reports a limit's format passed on (l.format): campaign's
// string limits are made as limit literals, which detailSources reads.
func isLimitFormat(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "format"
}

func isTypeNamed(e ast.Expr, name string) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name == name
	case *ast.SelectorExpr:
		return x.Sel.Name == name
	case *ast.StarExpr:
		return isTypeNamed(x.X, name)
	}
	return false
}

// eventsSources lists the reasons package events prints from their words
// (events.Words): a key ring's reasons an event is not signed (Admit's
// fail) and a signature's (signatureError), phrase.audit.not_signed; a key
// change's errors (wordsError), phrase.key_change; a broken chain's
// reasons (chainError), phrase.chain_why.
func eventsSources(t *testing.T) []sourcePhrase {
	t.Helper()
	fset := token.NewFileSet()
	var out []sourcePhrase
	eachNode(parseDir(t, fset, "events"), func(n ast.Node, fn *ast.FuncDecl) {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return
		}
		id, ok := call.Fun.(*ast.Ident)
		if !ok {
			return
		}
		family, i := "", 0
		switch {
		case id.Name == "fail" && fn != nil && fn.Name.Name == "Admit":
			family = "phrase.audit.not_signed"
		case id.Name == "signatureError":
			family = "phrase.audit.not_signed"
		case id.Name == "wordsError":
			family = "phrase.key_change"
		case id.Name == "chainError":
			family, i = "phrase.chain_why", 1
		default:
			return
		}
		if len(call.Args) <= i {
			return
		}
		if x, isIdent := call.Args[i].(*ast.Ident); isIdent && len(assignedLiterals(x, fn)) == 0 {
			return // the maker itself
		}
		for _, f := range stringValues(call.Args[i], fn) {
			if f == "%v" || f == "%s" {
				continue // another error's own words
			}
			out = append(out, sourcePhrase{Family: family, Format: f, Pos: shortPos(fset, call.Pos())})
		}
	})
	return out
}

// modifierSources lists the formats of the rules' C.7 modifiers' reasons
// (phrase.modifier): each Modifier{..., Words: words(format, ...)} of
// package rules. A modifier whose Reason is set in its literal fails: its
// reason is printed from its Words.
func modifierSources(t *testing.T) []sourcePhrase {
	t.Helper()
	fset := token.NewFileSet()
	var out []sourcePhrase
	eachNode(parseDir(t, fset, "rules"), func(n ast.Node, fn *ast.FuncDecl) {
		cl, ok := n.(*ast.CompositeLit)
		if !ok || !isTypeNamed(cl.Type, "Modifier") {
			return
		}
		for _, el := range cl.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			key, _ := kv.Key.(*ast.Ident)
			switch {
			case key == nil:
			case key.Name == "Reason":
				t.Errorf("%s: a modifier's Reason set by hand: give its Words (words(format, ...)), which keep its format and values", shortPos(fset, cl.Pos()))
			case key.Name == "Words":
				call, ok := kv.Value.(*ast.CallExpr)
				if id, isIdent := call.Fun.(*ast.Ident); !ok || !isIdent || id.Name != "words" || len(call.Args) == 0 {
					t.Errorf("%s: a modifier's Words not made by words(format, ...)", shortPos(fset, cl.Pos()))
					continue
				}
				for _, f := range stringValues(call.Args[0], fn) {
					out = append(out, sourcePhrase{Family: "phrase.modifier", Format: f, Pos: shortPos(fset, cl.Pos())})
				}
			}
		}
	})
	return out
}
