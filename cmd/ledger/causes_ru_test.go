package main

import (
	"context"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCausesSaidInRussian: the errors of a JSON body (ledger do --json), a
// scenario file's YAML (ledger play), a --config that cannot be opened and
// a ledger health that finds no server say what happened in the user's
// language, the parser's and the system's causes too (before: English
// after "ошибка:"). In English each is word for word as before.
func TestCausesSaidInRussian(t *testing.T) {
	dir := t.TempDir()
	write := writeIn(t, dir)
	bad := write("bad.yaml", "campaign: c1\nsteps:\n  - do: [unclosed\n")
	unknown := write("unknown.yaml", "campaign: c1\nbogus: 1\nsteps: []\n")
	missing := filepath.Join(dir, "missing.yaml")
	// A configuration with three problems (config.Validate names each).
	wrong := write("wrong.yaml", "nats:\n  listen: 0.0.0.0:4333\n  replicas: 3\nretries: 500\n")
	// A port nothing listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()

	english := regexp.MustCompile(`embedded server|is not a loopback|want 0 to|invalid character|looking for|unexpected end|cannot unmarshal|after top-level|in literal|scenario |parse|unmarshal errors|line \d|did not find|not found in type|config |open |no such file|not ready|does not answer|connection refused|dial tcp`)
	for _, tc := range []struct {
		what   string
		args   []string
		en, ru string
	}{
		{"json cut short", []string{"do", "demo/b1", "unit.move", "--json", `{"unit":`},
			"error: --json: unexpected end of JSON input",
			"ошибка: --json: JSON обрывается: не закрыта скобка или кавычка"},
		{"json bad key", []string{"do", "demo/b1", "unit.move", "--json", `{"unit":1,}`},
			"error: --json: invalid character '}' looking for beginning of object key string",
			"ошибка: --json: недопустимый символ '}' там, где должен начинаться ключ объекта (строка в кавычках)"},
		{"json bad literal", []string{"do", "demo/b1", "unit.move", "--json", `nope`},
			"error: --json: invalid character 'o' in literal null (expecting 'u')",
			"ошибка: --json: недопустимый символ 'o' в слове null (ожидалось 'u')"},
		{"json trailing", []string{"do", "demo/b1", "unit.move", "--json", `{"unit":"x"} extra`},
			"error: --json: invalid character 'e' after top-level value",
			"ошибка: --json: недопустимый символ 'e' после конца JSON (лишнее в конце)"},
		{"json array", []string{"do", "demo/b1", "unit.move", "--json", `[1,2]`},
			"error: --json: json: cannot unmarshal array into Go value of type map[string]interface {}",
			"ошибка: --json: тело команды — список, а должно быть объектом JSON"},
		{"yaml syntax", []string{"play", bad},
			"error: scenario " + bad + ": parse: yaml: line 2: did not find expected ',' or ']'",
			"ошибка: сценарий " + bad + ": ошибка синтаксиса в строке 2: не найдена ожидаемая «,» или «]»"},
		{"yaml unknown field", []string{"play", unknown},
			"error: scenario " + unknown + ": parse: yaml: unmarshal errors:\n  line 2: field bogus not found in type campaign.Scenario",
			"ошибка: сценарий " + unknown + ": ошибки разбора:\n  строка 2: неизвестное поле «bogus» (в campaign.Scenario такого поля нет)"},
		{"config missing", []string{"--config", missing, "health"},
			"error: config " + missing + ": open " + missing + ": no such file or directory",
			"ошибка: конфигурация " + missing + ": не удалось открыть " + missing + ": такого файла нет"},
		{"config invalid", []string{"--config", wrong, "health"},
			"error: config: nats.replicas 3: the embedded server is one node; set nats.url to use a cluster\n" +
				`nats.listen: "0.0.0.0:4333" is not a loopback address: the embedded server only listens locally` + "\nretries 500: want 0 to 100",
			"ошибка: конфигурация: nats.replicas 3: встроенный сервер — один узел; для кластера укажите nats.url\n" +
				"nats.listen: «0.0.0.0:4333» — не локальный адрес: встроенный сервер слушает только на этой машине\nretries 500: нужно от 0 до 100"},
		{"no server", []string{"health", "--url", "http://" + closed},
			`error: not ready: http://` + closed + ` does not answer: Get "http://` + closed + `/readyz": dial tcp ` + closed + `: connect: connection refused`,
			"ошибка: сервер не готов: http://" + closed + " не отвечает: Get http://" + closed + "/readyz: в соединении (tcp) с " + closed + " отказано — там никто не слушает"},
	} {
		for lang, want := range map[string]string{"en": tc.en, "ru": tc.ru} {
			t.Setenv("LEDGER_LANG", lang)
			var out, errb strings.Builder
			code := Main(context.Background(), append([]string{"--data", filepath.Join(dir, "data")}, tc.args...), strings.NewReader(""), &out, &errb)
			got := strings.TrimSuffix(errb.String(), "\n")
			if code == exitOK || got != want {
				t.Errorf("%s, %s: exit %d, said\n%s\nwant\n%s", tc.what, lang, code, got, want)
			}
			if lang == "ru" {
				if m := english.FindString(strings.ReplaceAll(got, dir, "")); m != "" {
					t.Errorf("%s, ru: English %q left in %q", tc.what, m, got)
				}
			}
		}
	}
}
