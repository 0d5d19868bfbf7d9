package main

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// listenProblem says why the server cannot listen on addr, and what to do.
func listenProblem(addr string, err error) error {
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Errorf("http: cannot listen on %s: another program uses this port; choose another http.addr (or --addr), or stop that program (%w)", addr, err)
	case errors.Is(err, syscall.EACCES):
		return fmt.Errorf("http: cannot listen on %s: not allowed (a port below 1024 needs privileges); choose another http.addr (or --addr) (%w)", addr, err)
	}
	return fmt.Errorf("http: cannot listen on %s: check http.addr (or --addr) (%w)", addr, err)
}

// tlsProblem says why the configured certificate and key cannot be used,
// naming the setting to check.
func tlsProblem(certFile, keyFile string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		switch pe.Path {
		case certFile:
			return fmt.Errorf("http: the certificate file %s cannot be read: check http.tls_cert (%w)", certFile, err)
		case keyFile:
			return fmt.Errorf("http: the key file %s cannot be read: check http.tls_key (%w)", keyFile, err)
		}
	}
	return fmt.Errorf("http: %s and %s are not a certificate and its key: check http.tls_cert and http.tls_key (%w)", certFile, keyFile, err)
}
