//go:build unix

package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The documents' examples run as written (docs/architecture.md, "The
// documents' test", says the same for readers). Every shell block of the
// documents below (a fence whose language is sh, bash, shell or console)
// runs in order, in one shell per document, in a fresh folder holding only
// the repository's examples/, against the binary built from this source
// (ledgerBinary) and a real `ledger serve` where the document starts one.
// Variables set by one block (tokens, addresses) are there in the next.
//
// A block is one of two kinds:
//   - with prompts: a line "$ command" is a command (a line ending in "\"
//     goes on with the next), the lines after it up to the next command
//     or comment are its output as shown, compared (below); a command
//     shown without output must exit 0;
//   - without prompts: every line but comments is a command, which must
//     exit 0, or 3 with the rule in its message when its comment says
//     "refused: C.17", or N when it says "exit N".
//
// A block whose first line is a comment starting "# illustration" is not
// run: the document says so where the reader sees it. A comment line
// starting "# Ctrl-C" stops the server the document started, as Ctrl-C
// in its terminal would.
//
// The few lines the test does not type as written: `go build -o ledger
// ./cmd/ledger` puts the binary this test built from the same source at
// ./ledger; `go run ./cmd/ledger ARGS` runs that binary with ARGS; `go test
// ./...` is the suite this test is part of, and is not run again. A
// `ledger serve` line runs in the background on a free port
// (LEDGER_HTTP_ADDR=127.0.0.1:0 unless the line names an address), and
// the address the document shows for it (the first URL in the line's
// comment, else 127.0.0.1:8080) means that port in every later command and
// output. A token written "lt_…" in a command
// whose comment names "NAME's token" is the token last printed for NAME.
//
// Output is compared after the same normalisation of both sides: runs of
// spaces are one space, trailing blank lines go; times, clock times and
// runs of eight or more hex digits (hashes, tokens, seeds, with a trailing
// "…" where shortened) are placeholders. In the output as shown, "…"
// stands for any text (an answer shortened), and nothing else is loose.

// docsTested are the documents whose shell blocks run, and whether their
// commands find `ledger` on the PATH (docs/api.md writes `ledger`, the
// README builds ./ledger).
var docsTested = []struct {
	path   string
	onPath bool
}{
	{"README.md", false},
	{"docs/api.md", true},
	{"docs/club.md", true},
}

// TestDocsExamples runs the shell blocks of the documents above.
func TestDocsExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("the documents' examples build and run the binary: not in -short")
	}
	for _, tool := range []string{"bash", "curl", "jq", "openssl"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("LEDGER_REQUIRE_TOOLS") != "" {
				t.Fatalf("the documents' examples need %s, and LEDGER_REQUIRE_TOOLS is set: %v", tool, err)
			}
			t.Skipf("the documents' examples need %s (apt-get install %s): skipped", tool, tool)
		}
	}
	bin := ledgerBinary(t)
	for _, doc := range docsTested {
		t.Run(strings.ReplaceAll(doc.path, "/", "_"), func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile(filepath.Join("..", "..", doc.path))
			if err != nil {
				t.Fatal(err)
			}
			steps, err := parseDocSteps(string(raw))
			if err != nil {
				t.Fatalf("%s: %v", doc.path, err)
			}
			if len(steps) == 0 {
				t.Fatalf("%s: no shell block to run", doc.path)
			}
			sh := newDocShell(t, bin, doc.onPath)
			for _, st := range steps {
				if !sh.step(doc.path, st) {
					return
				}
			}
		})
	}
}

// docStep is one command of a document, or a stop of its server.
type docStep struct {
	line    int     // of the document, 1-based
	cmd     string  // as written (continuation lines joined by "\\\n")
	comment string  // its trailing comment (blocks without prompts)
	want    *string // the output shown (blocks with prompts), nil if none
	prompt  bool
	stop    bool // "# Ctrl-C": stop the server
}

var runLanguages = map[string]bool{"sh": true, "bash": true, "shell": true, "console": true}

// parseDocSteps reads the shell blocks of a Markdown document, in order.
func parseDocSteps(doc string) ([]docStep, error) {
	lines := strings.Split(doc, "\n")
	var steps []docStep
	for i := 0; i < len(lines); i++ {
		fence, ok := strings.CutPrefix(strings.TrimLeft(lines[i], " "), "```")
		if !ok {
			continue
		}
		lang := strings.Fields(fence + " x")[0]
		start := i + 1
		end := start
		for end < len(lines) && !strings.HasPrefix(strings.TrimLeft(lines[end], " "), "```") {
			end++
		}
		if end == len(lines) {
			return nil, fmt.Errorf("line %d: a fence never closed", i+1)
		}
		i = end
		if !runLanguages[lang] {
			continue
		}
		block := lines[start:end]
		first := ""
		for _, l := range block {
			if strings.TrimSpace(l) != "" {
				first = strings.TrimSpace(l)
				break
			}
		}
		if strings.HasPrefix(first, "# illustration") {
			continue
		}
		prompt := false
		for _, l := range block {
			if strings.HasPrefix(l, "$ ") {
				prompt = true
			}
		}
		var cur *docStep
		for j := 0; j < len(block); j++ {
			l := block[j]
			lineNo := start + j + 1
			trimmed := strings.TrimSpace(l)
			isCommand := (prompt && strings.HasPrefix(l, "$ ")) || (!prompt && trimmed != "" && !strings.HasPrefix(trimmed, "#"))
			switch {
			case strings.HasPrefix(trimmed, "# Ctrl-C"):
				steps = append(steps, docStep{line: lineNo, stop: true})
				cur = nil
			case isCommand:
				cmd := strings.TrimPrefix(l, "$ ")
				for !shellComplete(cmd) && j+1 < len(block) {
					j++
					cmd += "\n" + block[j]
				}
				if m := hereDoc.FindStringSubmatch(cmd); m != nil {
					for j+1 < len(block) {
						j++
						cmd += "\n" + block[j]
						if strings.TrimSpace(block[j]) == m[1] {
							break
						}
					}
				}
				st := docStep{line: lineNo, cmd: cmd, prompt: prompt, comment: trailingComment(strings.SplitN(cmd, "\n", 2)[0])}
				steps = append(steps, st)
				cur = &steps[len(steps)-1]
			case strings.HasPrefix(l, "#") || (!prompt && trimmed == ""):
				cur = nil // a comment ends an output
			case prompt:
				if cur == nil || (cur.want == nil && trimmed == "") {
					if trimmed == "" {
						continue
					}
					return nil, fmt.Errorf("line %d: output %q before any command", lineNo, l)
				}
				if cur.want == nil {
					cur.want = new(string)
				} else {
					*cur.want += "\n"
				}
				*cur.want += l
			}
		}
	}
	return steps, nil
}

// shellComplete says whether cmd is a whole command: no quote left open
// and no backslash at the end of its last line.
func shellComplete(cmd string) bool {
	var quote rune
	escaped, comment := false, false
	prev := '\n'
	for _, r := range cmd {
		switch {
		case comment:
			comment = r != '\n'
		case escaped:
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			}
		case r == '\\':
			escaped = true
		case quote == '"':
			if r == '"' {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (prev == ' ' || prev == '\t' || prev == '\n'):
			comment = true
		}
		prev = r
	}
	return quote == 0 && !escaped
}

// trailingComment is what follows the first " #" outside quotes.
func trailingComment(cmd string) string {
	var quote rune
	prev := ' '
	for i, r := range cmd {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (prev == ' ' || prev == '\t'):
			return strings.TrimSpace(cmd[i+1:])
		}
		prev = r
	}
	return ""
}

// docShell is one bash, the terminal a reader types a document's
// commands into.
type docShell struct {
	t       *testing.T
	bin     string
	dir     string // the fresh folder the commands run in
	tmp     string // the test's own files (outputs, the server's log)
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	serving bool
	addr    string // the running server's host:port
	shown   string // the host:port the document shows for it
	tokens  map[string]string
}

func newDocShell(t *testing.T, bin string, onPath bool) *docShell {
	t.Helper()
	root := t.TempDir()
	sh := &docShell{t: t, bin: bin, dir: filepath.Join(root, "work"), tmp: filepath.Join(root, "test"), tokens: map[string]string{}}
	for _, d := range []string{sh.dir, sh.tmp, filepath.Join(root, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	examples, err := filepath.Abs(filepath.Join("..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(examples, filepath.Join(sh.dir, "examples")); err != nil {
		t.Fatal(err)
	}
	path := os.Getenv("PATH")
	if onPath {
		binDir := filepath.Join(root, "bin")
		if err := os.MkdirAll(binDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(bin, filepath.Join(binDir, "ledger")); err != nil {
			t.Fatal(err)
		}
		path = binDir + string(os.PathListSeparator) + path
	}
	env := []string{"PATH=" + path, "HOME=" + filepath.Join(root, "home"), "LANG=C.UTF-8", "TMPDIR=" + sh.tmp, "TERM=dumb"}
	cmd := exec.Command("bash", "--noprofile", "--norc")
	cmd.Dir, cmd.Env = sh.dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = os.Stderr
	if sh.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	sh.out = bufio.NewReader(stdout)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sh.cmd = cmd
	t.Cleanup(sh.close)
	return sh
}

// close stops the server if it still runs, then the shell and anything it
// left running (its process group).
func (sh *docShell) close() {
	if sh.serving {
		sh.stopServer()
	}
	_ = sh.in.Close()
	done := make(chan struct{})
	go func() { _ = sh.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
	}
	_ = syscall.Kill(-sh.cmd.Process.Pid, syscall.SIGKILL)
}

// run sends script to the shell, its output to the files out and err, and
// returns its exit code; false when the shell does not answer in time.
func (sh *docShell) run(script string, timeout time.Duration) (int, bool) {
	marker := fmt.Sprintf("__docs_step_done_%d__", time.Now().UnixNano())
	full := fmt.Sprintf("{\n%s\n} </dev/null >%q 2>%q\nprintf '\\n%s %%d\\n' $?\n", script,
		filepath.Join(sh.tmp, "out"), filepath.Join(sh.tmp, "err"), marker)
	if _, err := io.WriteString(sh.in, full); err != nil {
		sh.t.Fatalf("the shell: %v", err)
	}
	type result struct {
		code int
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		for {
			line, err := sh.out.ReadString('\n')
			if err != nil {
				ch <- result{-1, err}
				return
			}
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), marker+" "); ok {
				code, err := strconv.Atoi(rest)
				ch <- result{code, err}
				return
			}
		}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			sh.t.Fatalf("the shell: %v", r.err)
		}
		return r.code, true
	case <-time.After(timeout):
		_ = syscall.Kill(-sh.cmd.Process.Pid, syscall.SIGKILL)
		return -1, false
	}
}

func (sh *docShell) output() (string, string) {
	out, _ := os.ReadFile(filepath.Join(sh.tmp, "out"))
	errb, _ := os.ReadFile(filepath.Join(sh.tmp, "err"))
	return string(out), string(errb)
}

var (
	serveLine    = regexp.MustCompile(`(^|\s)(\S*/)?ledger(\s+--?\S+(\s+[^-\s]\S*)?)*\s+serve(\s|$)`)
	servingLine  = regexp.MustCompile(`serving (https?)://(\S+)`)
	tokenPrinted = regexp.MustCompile(`token of (\S+) in campaign \S+ \(shown once: keep it\): (lt_[0-9a-f]+)`)
	tokenWanted  = regexp.MustCompile(`lt_(…|\.\.\.)`)
	tokenOwner   = regexp.MustCompile(`\b([a-z][a-z0-9_-]*)'s token`)
	refusedWant  = regexp.MustCompile(`refused: ([A-Z]\.\d+|[a-z]+)`)
	exitWant     = regexp.MustCompile(`\bexit (\d+)\b`)
	hereDoc      = regexp.MustCompile(`<<-?\s*'?"?([A-Za-z_]+)'?"?\s*$`)
	shownURL     = regexp.MustCompile(`https?://([^\s/;,)]+)`)
)

const docsShownAddr = "127.0.0.1:8080"

// step runs one step and reports what differs; false stops the document.
func (sh *docShell) step(doc string, st docStep) bool {
	t := sh.t
	where := fmt.Sprintf("%s:%d", doc, st.line)
	if st.stop {
		if !sh.serving {
			t.Errorf("%s: Ctrl-C, but no server runs", where)
			return false
		}
		sh.stopServer()
		return true
	}
	cmd := st.cmd
	if sh.addr != "" {
		cmd = strings.ReplaceAll(cmd, sh.shown, sh.addr)
	}
	if tokenWanted.MatchString(cmd) {
		m := tokenOwner.FindStringSubmatch(st.comment)
		if m == nil || sh.tokens[m[1]] == "" {
			t.Errorf("%s: a token lt_… whose owner the comment does not name (\"NAME's token\"), or none was printed for them: %s", where, st.cmd)
			return false
		}
		cmd = tokenWanted.ReplaceAllString(cmd, sh.tokens[m[1]])
	}
	fields := strings.Fields(cmd)
	switch {
	case len(fields) >= 2 && fields[0] == "go" && fields[1] == "test":
		t.Logf("%s: %s: the suite this test is part of, not run again", where, st.cmd)
		return true
	case strings.HasPrefix(cmd, "go build -o ledger ./cmd/ledger"):
		cmd = fmt.Sprintf("cp %q ./ledger", sh.bin)
	case strings.HasPrefix(cmd, "go run ./cmd/ledger"):
		cmd = fmt.Sprintf("%q", sh.bin) + strings.TrimPrefix(cmd, "go run ./cmd/ledger")
	case len(fields) > 0 && fields[0] == "go":
		t.Errorf("%s: the documents' test has no rule for %q: mark its block an illustration, or give it a rule", where, st.cmd)
		return false
	case serveLine.MatchString(strings.SplitN(cmd, "#", 2)[0]) && !strings.Contains(cmd, "|") && !strings.Contains(cmd, "--help"):
		return sh.startServer(where, cmd)
	}
	code, ok := sh.run(cmd, 90*time.Second)
	out, errs := sh.output()
	if !ok {
		t.Errorf("%s: %s\ndid not finish in 90 s\n%s%s", where, st.cmd, out, errs)
		return false
	}
	for _, m := range tokenPrinted.FindAllStringSubmatch(out, -1) {
		sh.tokens[m[1]] = m[2]
	}
	if os.Getenv("LEDGER_DOCS_SHOW") != "" {
		t.Logf("%s: $ %s\n[exit %d]\n%s%s", where, cmd, code, out, errs)
	}
	if st.prompt {
		if st.want == nil {
			if code != 0 {
				t.Errorf("%s: %s\nexit %d, want 0\n%s%s", where, st.cmd, code, out, errs)
			}
			return true
		}
		want := *st.want
		if sh.addr != "" {
			want = strings.ReplaceAll(want, sh.shown, sh.addr)
		}
		if !docOutputMatches(want, out+errs) {
			t.Errorf("%s: %s\nthe document shows:\n%s\nthe program printed (exit %d):\n%s%s", where, st.cmd, *st.want, code, out, errs)
		}
		return true
	}
	wantCode, rule := 0, ""
	if m := refusedWant.FindStringSubmatch(st.comment); m != nil {
		wantCode, rule = 3, m[1]
	}
	if m := exitWant.FindStringSubmatch(st.comment); m != nil {
		wantCode, _ = strconv.Atoi(m[1])
	}
	if code != wantCode || (rule != "" && !strings.Contains(errs, rule)) {
		want := fmt.Sprintf("exit %d", wantCode)
		if rule != "" {
			want += ", refused citing " + rule
		}
		t.Errorf("%s: %s\nexit %d, the document says %s\n%s%s", where, st.cmd, code, want, out, errs)
		return code == 0 || wantCode != 0
	}
	return true
}

// startServer runs a `ledger serve` line in the background and waits until
// it serves.
func (sh *docShell) startServer(where, cmd string) bool {
	t := sh.t
	if sh.serving {
		t.Errorf("%s: a second server while the first runs", where)
		return false
	}
	sh.shown = docsShownAddr
	if m := shownURL.FindStringSubmatch(trailingComment(cmd)); m != nil {
		sh.shown = m[1]
	}
	cmd = strings.TrimSpace(strings.SplitN(cmd, " #", 2)[0])
	cmd = strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(cmd, "&")), " ")
	if !strings.Contains(cmd, "--addr") && !strings.Contains(cmd, "LEDGER_HTTP_ADDR=") {
		cmd = "LEDGER_HTTP_ADDR=127.0.0.1:0 " + cmd
	}
	log := filepath.Join(sh.tmp, "serve.log")
	script := fmt.Sprintf("%s >%q 2>&1 &\necho $! >%q", cmd, log, filepath.Join(sh.tmp, "serve.pid"))
	if code, ok := sh.run(script, 10*time.Second); !ok || code != 0 {
		t.Errorf("%s: %s: could not start (exit %d)", where, cmd, code)
		return false
	}
	sh.serving = true
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(log)
		if m := servingLine.FindSubmatch(b); m != nil {
			sh.addr = string(m[2])
			if os.Getenv("LEDGER_DOCS_SHOW") != "" {
				t.Logf("%s: $ %s\n%s", where, cmd, b)
			}
			return true
		}
		if time.Now().After(deadline) || !sh.serverAlive() {
			t.Errorf("%s: %s: did not start serving:\n%s", where, cmd, b)
			return false
		}
		time.Sleep(50 * time.Millisecond) // polling the server's log for its first line
	}
}

// serverAlive says whether the server's process still runs (a zombie
// waiting for the shell to reap it does not).
func (sh *docShell) serverAlive() bool {
	b, err := os.ReadFile(filepath.Join(sh.tmp, "serve.pid"))
	if err != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strings.TrimSpace(string(b)) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}

// stopServer interrupts the server, as Ctrl-C in its terminal, and waits
// for it to finish.
func (sh *docShell) stopServer() {
	pid := filepath.Join(sh.tmp, "serve.pid")
	code, ok := sh.run(fmt.Sprintf("p=$(cat %q); kill -INT $p; wait $p", pid), 40*time.Second)
	sh.serving = false
	b, _ := os.ReadFile(filepath.Join(sh.tmp, "serve.log"))
	if !ok {
		sh.t.Errorf("the server did not stop on an interrupt within 40 s:\n%s", b)
		return
	}
	if code != 0 && code != 130 {
		sh.t.Errorf("the server stopped with exit %d:\n%s", code, b)
	}
}

var (
	docTime  = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	docClock = regexp.MustCompile(`\b\d\d:\d\d:\d\d\b`)
	docHex   = regexp.MustCompile(`[0-9a-f]{8,}…?`)
	docSpace = regexp.MustCompile(`[ \t]+`)
)

// docNormal is the text both sides are compared in.
func docNormal(s string) string {
	s = strings.ReplaceAll(s, "\r", "")
	s = docTime.ReplaceAllString(s, "<time>")
	s = docClock.ReplaceAllString(s, "<clock>")
	s = docHex.ReplaceAllString(s, "<hex>")
	s = docSpace.ReplaceAllString(s, " ")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// docOutputMatches says whether got is the output want shows, "…"
// standing for any text.
func docOutputMatches(want, got string) bool {
	parts := strings.Split(docNormal(want), "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	re, err := regexp.Compile(`(?s)\A` + strings.Join(parts, `.*?`) + `\z`)
	if err != nil {
		return false
	}
	return re.MatchString(docNormal(got))
}
