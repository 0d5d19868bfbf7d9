package main

import (
	"errors"
	"io/fs"
	"syscall"

	"github.com/clubledger/ledger/rules"
)

// listenProblem says why the server cannot listen on addr, and what to do.
func listenProblem(addr string, err error) error {
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return said(err, rules.Words{Format: "http: cannot listen on %s: another program uses this port; choose another http.addr (or --addr), or stop that program (%s)", Args: []any{addr, err.Error()}})
	case errors.Is(err, syscall.EACCES):
		return said(err, rules.Words{Format: "http: cannot listen on %s: not allowed (a port below 1024 needs privileges); choose another http.addr (or --addr) (%s)", Args: []any{addr, err.Error()}})
	}
	return said(err, rules.Words{Format: "http: cannot listen on %s: check http.addr (or --addr) (%s)", Args: []any{addr, err.Error()}})
}

// tlsProblem says why the configured certificate and key cannot be used,
// naming the setting to check.
func tlsProblem(certFile, keyFile string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		switch pe.Path {
		case certFile:
			return said(err, rules.Words{Format: "http: the certificate file %s cannot be read: check http.tls_cert (%s)", Args: []any{certFile, err.Error()}})
		case keyFile:
			return said(err, rules.Words{Format: "http: the key file %s cannot be read: check http.tls_key (%s)", Args: []any{keyFile, err.Error()}})
		}
	}
	return said(err, rules.Words{Format: "http: %s and %s are not a certificate and its key: check http.tls_cert and http.tls_key (%s)", Args: []any{certFile, keyFile, err.Error()}})
}

// saidError is an error of the CLI's own, in words it says in the user's
// language (the format's entry in i18n's detail.usage, as a usage error's),
// wrapping its cause.
type saidError struct {
	words rules.Words
	err   error
}

// said is err explained by w.
func said(err error, w rules.Words) error { return &saidError{words: w, err: err} }

func (e *saidError) Error() string { return e.words.String() }
func (e *saidError) Unwrap() error { return e.err }

// in says the error in lang.
func (e *saidError) in(lang string) string {
	return messages().Detail(lang, "detail.usage", e.words, e.Error())
}
