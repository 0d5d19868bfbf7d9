package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/clubledger/ledger/projections/sqlite"
)

// schemaDoc is the document of the projection's tables and columns.
const schemaDoc = "../../docs/projection-schema.md"

// docColumn is one row of a table's column list in schemaDoc.
type docColumn struct {
	name, typ, null string
	line            int
}

var (
	// A table's section: "## `name`" (or ###).
	docTableHeading = regexp.MustCompile("^#{2,3} `([a-z_]+)`\\s*$")
	// A column's row: "| `name` | TYPE | NOT NULL, key | meaning |".
	docColumnRow = regexp.MustCompile("^\\|\\s*`([a-z_]+)`\\s*\\|([^|]*)\\|([^|]*)\\|")
)

// readSchemaDoc returns schemaDoc's tables with their columns in the order
// it lists them.
func readSchemaDoc(t *testing.T) (map[string][]docColumn, []string) {
	t.Helper()
	raw, err := os.ReadFile(schemaDoc)
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string][]docColumn{}
	var order []string
	current := ""
	for i, l := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(l, "#") {
			current = ""
			if m := docTableHeading.FindStringSubmatch(l); m != nil {
				current = m[1]
				if _, dup := tables[current]; dup {
					t.Errorf("%s:%d: table %s has two sections", schemaDoc, i+1, current)
				}
				tables[current] = []docColumn{}
				order = append(order, current)
			}
			continue
		}
		if current == "" {
			continue
		}
		if m := docColumnRow.FindStringSubmatch(l); m != nil {
			tables[current] = append(tables[current], docColumn{name: m[1], typ: strings.TrimSpace(m[2]), null: strings.TrimSpace(m[3]), line: i + 1})
		}
	}
	return tables, order
}

// nullKey is how schemaDoc writes a column's NOT NULL and key: "key" for a
// column of the primary key, "NOT NULL", both, or "NULL" when it may be.
func nullKey(notNull, pk bool) string {
	var parts []string
	if pk {
		parts = append(parts, "key")
	}
	if notNull {
		parts = append(parts, "NOT NULL")
	}
	if len(parts) == 0 {
		return "NULL"
	}
	return strings.Join(parts, ", ")
}

// TestSchemaDocumented: docs/projection-schema.md has a section for every
// table of a fresh projection (every migration applied) and none for a
// table it does not have, and lists each table's columns in declaration
// order, each with the type SQLite declares and whether it is NOT NULL or
// part of the primary key.
func TestSchemaDocumented(t *testing.T) {
	ctx := context.Background()
	d, err := sqlite.Open(filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	db := d.SQL()
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(tables) < 20 {
		t.Fatalf("a fresh projection has %d tables: %v", len(tables), tables)
	}
	doc, _ := readSchemaDoc(t)
	for _, table := range tables {
		documented, ok := doc[table]
		if !ok {
			t.Errorf("%s has no section for table %s (a heading \"### `%s`\" and a table of its columns)", schemaDoc, table, table)
		}
		byName := map[string]docColumn{}
		for _, c := range documented {
			if _, dup := byName[c.name]; dup {
				t.Errorf("%s:%d: table %s lists column %s twice", schemaDoc, c.line, table, c.name)
			}
			byName[c.name] = c
		}
		cols, err := db.QueryContext(ctx, `SELECT name, type, "notnull", pk FROM pragma_table_info(?) ORDER BY cid`, table)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for cols.Next() {
			var name, typ string
			var notNull, pk int
			if err := cols.Scan(&name, &typ, &notNull, &pk); err != nil {
				t.Fatal(err)
			}
			names = append(names, name)
			want := nullKey(notNull != 0, pk > 0)
			c, ok := byName[name]
			switch {
			case !ok:
				if documented != nil {
					t.Errorf("%s: table %s: column %s is not documented; add: | `%s` | %s | %s | ... |", schemaDoc, table, name, name, typ, want)
				}
			case c.typ != typ:
				t.Errorf("%s:%d: table %s: column %s is declared %s, the document says %q", schemaDoc, c.line, table, name, typ, c.typ)
			case c.null != want:
				t.Errorf("%s:%d: table %s: column %s is %q, the document says %q", schemaDoc, c.line, table, name, want, c.null)
			}
		}
		cols.Close()
		if err := cols.Err(); err != nil {
			t.Fatal(err)
		}
		var docNames []string
		for _, c := range documented {
			docNames = append(docNames, c.name)
			if !slices.Contains(names, c.name) {
				t.Errorf("%s:%d: table %s has no column %s", schemaDoc, c.line, table, c.name)
			}
		}
		if ok && len(docNames) == len(names) && !slices.Equal(docNames, names) {
			t.Errorf("%s: table %s: columns listed as %v, declared as %v: list them in declaration order", schemaDoc, table, docNames, names)
		}
	}
	for table, documented := range doc {
		if !slices.Contains(tables, table) {
			line := 0
			if len(documented) > 0 {
				line = documented[0].line
			}
			t.Errorf("%s:%d: documents table %s, which a fresh projection does not have", schemaDoc, line, table)
		}
	}
	if t.Failed() {
		t.Logf("the tables of a fresh projection: %s", strings.Join(tables, ", "))
	}
}
