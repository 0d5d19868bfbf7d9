package jetstream

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/clubledger/ledger/config"
)

// The users of the ledger's NATS account, defined in config/nats/accounts.conf
// (config.NATSAccounts) for the cluster and the embedded server alike.
const (
	// UserLedger is the service's own user: appends, reads, seals; creates
	// the stream and the vault when they are missing; changes, deletes and
	// purges nothing.
	UserLedger = "ledger"
	// UserTools is the read-only user for the nats CLI: it reads LEDGER and
	// nothing else, on its own inbox prefix ToolsInboxPrefix.
	UserTools = "tools"
	// UserAdmin creates the stream and the vault and updates their
	// configuration; it reads and writes no event and no secret, on its own
	// inbox prefix AdminInboxPrefix.
	UserAdmin = "admin"
	// UserSys is the system account's user (cluster monitoring).
	UserSys = "sys"
)

// Inbox prefixes of the users that may not listen on the service's _INBOX.>.
const (
	ToolsInboxPrefix = "_INBOX_tools"
	AdminInboxPrefix = "_INBOX_admin"
)

// AuthDirName is the folder of the data folder where the embedded server's
// generated passwords are kept, one file per user (<user>.password),
// readable by the owner only.
const AuthDirName = "nats-auth"

// passwordVar is the variable accounts.conf reads a user's password from.
func passwordVar(user string) string { return strings.ToUpper(user) + "_NATS_PASSWORD" }

// varRef finds the variables accounts.conf refers to.
var varRef = regexp.MustCompile(`\$([A-Za-z_][A-Za-z0-9_]*)`)

// Credentials are the passwords of the embedded server's users, generated at
// the first start and kept in a folder of the data folder (0700, files
// 0600), so that they stay the same across restarts.
type Credentials struct {
	// Dir is the folder they are kept in.
	Dir       string
	passwords map[string]string // user -> password
}

// Password returns user's password ("" for an unknown user).
func (c *Credentials) Password(user string) string { return c.passwords[user] }

// PasswordFile returns the file user's password is kept in.
func (c *Credentials) PasswordFile(user string) string {
	return filepath.Join(c.Dir, user+".password")
}

// LoadCredentials reads the passwords of every user accounts.conf names
// from dir, generating (and writing) the ones that are missing. dir is
// created owner-only; an existing dir or file readable by others is made
// owner-only again.
func LoadCredentials(dir string) (*Credentials, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("jetstream: credentials folder: %w", err)
	}
	if err := ownerOnly(dir, 0o700); err != nil {
		return nil, err
	}
	c := &Credentials{Dir: dir, passwords: map[string]string{}}
	for _, user := range accountUsers() {
		pw, err := loadOrMakePassword(c.PasswordFile(user))
		if err != nil {
			return nil, err
		}
		c.passwords[user] = pw
	}
	return c, nil
}

// accountUsers lists the users whose password variable accounts.conf reads
// (ADMIN_NATS_PASSWORD -> admin), sorted.
func accountUsers() []string {
	seen := map[string]bool{}
	for _, line := range strings.Split(config.NATSAccounts, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		for _, m := range varRef.FindAllStringSubmatch(line, -1) {
			if u, ok := strings.CutSuffix(m[1], "_NATS_PASSWORD"); ok {
				seen[strings.ToLower(u)] = true
			}
		}
	}
	var users []string
	for u := range seen {
		users = append(users, u)
	}
	sort.Strings(users)
	return users
}

func ownerOnly(path string, mode fs.FileMode) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("jetstream: credentials: %w", err)
	}
	if st.Mode().Perm() != mode {
		if err := os.Chmod(path, mode); err != nil {
			return fmt.Errorf("jetstream: credentials: make %s owner-only: %w", path, err)
		}
	}
	return nil
}

// loadOrMakePassword reads a password file, or writes a new random password
// to it: "pw" and 48 hex digits, a shape nats-server's configuration parser
// reads as a string (docs/deploy.md).
func loadOrMakePassword(path string) (string, error) {
	raw, err := os.ReadFile(path)
	if err == nil {
		pw := strings.TrimSpace(string(raw))
		if !validPassword(pw) {
			return "", fmt.Errorf("jetstream: credentials: %s does not hold a password (a letter, then letters, digits, '-' or '_'); remove it to have a new one made", path)
		}
		return pw, ownerOnly(path, 0o600)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("jetstream: credentials: %w", err)
	}
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("jetstream: credentials: %w", err)
	}
	pw := "pw" + hex.EncodeToString(b)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("jetstream: credentials: %w", err)
	}
	_, werr := f.WriteString(pw + "\n")
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(path)
		return "", fmt.Errorf("jetstream: credentials: write %s: %w", path, err)
	}
	return pw, nil
}

var passwordShape = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

func validPassword(pw string) bool { return len(pw) >= 16 && passwordShape.MatchString(pw) }

// accountOptions parses config.NATSAccounts with nats-server's own parser,
// the passwords defined as variables before the file's text, and returns
// the server options holding its accounts, users and system account. Each
// call builds new accounts: a server owns the ones it is given.
//
// When networkUsers is false, every user but UserTools may connect
// in-process only (connection type IN_PROCESS), and UserTools over TCP
// only: a listening port lets nobody in but the read-only tools.
func accountOptions(c *Credentials, networkUsers bool) (*server.Options, error) {
	var b strings.Builder
	for _, user := range accountUsers() {
		pw := c.Password(user)
		if pw == "" {
			return nil, fmt.Errorf("jetstream: no password for NATS user %s", user)
		}
		fmt.Fprintf(&b, "%s: %q\n", passwordVar(user), pw)
	}
	b.WriteString(config.NATSAccounts)
	o := &server.Options{}
	if err := o.ProcessConfigString(b.String()); err != nil {
		return nil, fmt.Errorf("jetstream: the embedded copy of config/nats/accounts.conf: %w", err)
	}
	if len(o.Users) == 0 || o.NoAuthUser != "" {
		return nil, errors.New("jetstream: accounts.conf names no users, or lets anonymous clients in")
	}
	if !networkUsers {
		for _, u := range o.Users {
			t := "IN_PROCESS" // jwt.ConnectionTypeInProcess
			if u.Username == UserTools {
				t = "STANDARD" // jwt.ConnectionTypeStandard
			}
			u.AllowedConnectionTypes = map[string]struct{}{t: {}}
		}
	}
	return o, nil
}

// ToolsUsage returns, for people, how to read the log with the nats CLI
// through the embedded server's listening port, as the read-only user
// UserTools: the URL, where its password is kept (owner-only), and commands
// that work as written. "" when the server does not listen.
func (e *Embedded) ToolsUsage() string {
	url, file := e.ToolsAccess()
	if url == "" {
		return ""
	}
	return ToolsUsage(url, file)
}

// ToolsAccess is where the read-only tools user reaches the server (its
// listening port's URL, "" when it does not listen) and the absolute path
// of the file that keeps its password: what ToolsUsage says, for a text
// said in another language.
func (e *Embedded) ToolsAccess() (url, passwordFile string) {
	url = e.ClientURL()
	if url == "" {
		return "", ""
	}
	passwordFile = e.creds.PasswordFile(UserTools)
	if abs, err := filepath.Abs(passwordFile); err == nil {
		passwordFile = abs
	}
	return url, passwordFile
}

// ToolsUsage is the text Embedded.ToolsUsage returns, for a server at url
// whose tools password is in passwordFile.
func ToolsUsage(url, passwordFile string) string {
	return fmt.Sprintf(`NATS listens on %[1]s for read-only tools only: user %[2]q may read the
LEDGER stream (not the sealed vault, and no change of any kind); no other
user and no anonymous client gets in over the network. Its password is in
%[3]s (readable by you only). With the nats CLI:

  export NATS_URL=%[1]s NATS_USER=%[2]s NATS_PASSWORD="$(cat '%[3]s')"
  nats --inbox-prefix %[4]s stream info LEDGER
  nats --inbox-prefix %[4]s stream get LEDGER 1
  nats --inbox-prefix %[4]s stream view LEDGER

(--inbox-prefix %[4]s is required: the tools user may not listen on _INBOX.>.)
`, url, UserTools, passwordFile, ToolsInboxPrefix)
}
