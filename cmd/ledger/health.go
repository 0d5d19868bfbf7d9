package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/clubledger/ledger/rules"
)

func init() {
	extraCommands = append(extraCommands, func(c *cli) *cobra.Command { return c.healthCommand() })
}

// healthCommand asks a running `ledger serve` whether it is ready, for a
// container's healthcheck (docker-compose.yml): the image has no curl nor
// wget, and needs none.
func (c *cli) healthCommand() *cobra.Command {
	var url, cacert string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "health",
		Short: "Ask a running ledger server whether it is ready (GET /readyz): exit 0 ready, 1 not",
		Long: `Health asks the ledger server at http.addr (or --url) for /readyz, the
readiness docs/deploy.md describes: the log answers, the stream guard finds
nothing wrong, the projector runs and is near the log. It prints the answer
and exits 0 when the server is ready, 1 when it is not or does not answer.
A server listening on every address (0.0.0.0:8080) is asked on 127.0.0.1.
Over HTTPS it trusts, besides the system's authorities, the configured
http.tls_cert (a club's self-signed certificate, docs/club.md) and any
--cacert FILE. No token is needed. docker-compose.yml runs it as the ledger container's
healthcheck.`,
		Example: `  ledger health
  ledger health --url http://127.0.0.1:8080`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var trust []string
			if cacert != "" {
				trust = append(trust, cacert)
			}
			// The configuration is needed for the address; with --url it
			// only adds the certificate to trust, when it can be read.
			cfg, err := c.config()
			if url == "" {
				if err != nil {
					return err
				}
				url = readyURL(cfg.HTTP.Addr, cfg.HTTP.TLSCert != "")
			}
			if err == nil && cfg.HTTP.TLSCert != "" {
				trust = append(trust, cfg.HTTP.TLSCert)
			}
			client, err := healthClient(trust)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(c.ctx, timeout)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, "GET", strings.TrimSuffix(url, "/")+"/readyz", nil)
			if err != nil {
				return usagef("--url %q: %v", url, err)
			}
			res, err := client.Do(req)
			if err != nil {
				return healthWords(url, err)
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
			fmt.Fprintln(c.stdout, strings.TrimSpace(string(body)))
			if res.StatusCode != http.StatusOK {
				return said(errNotReady, rules.Words{Format: "not ready: %s/readyz answered %s", Args: []any{strings.TrimSuffix(url, "/"), res.Status}})
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&url, "url", "", "the server's address (default: http.addr, on 127.0.0.1 when it listens on every address)")
	cmd.Flags().StringVar(&cacert, "cacert", "", "also trust this PEM certificate (or authority) for an HTTPS server (the configured http.tls_cert is trusted too)")
	cmd.Flags().DurationVar(&timeout, "timeout", 5*time.Second, "how long to wait for the answer")
	return cmd
}

// readyURL is where a server listening on addr answers on this machine.
func readyURL(addr string, tls bool) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		host, port = addr, "8080"
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	scheme := "http"
	if tls {
		scheme = "https"
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// healthClient is an HTTP client that trusts, besides the system's
// authorities, the PEM certificates in files: the server's own
// http.tls_cert (often self-signed, docs/club.md) and --cacert.
func healthClient(files []string) (*http.Client, error) {
	if len(files) == 0 {
		return http.DefaultClient, nil
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	for _, f := range files {
		pem, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("the certificate to trust cannot be read: %w", err)
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s holds no PEM certificate to trust", f)
		}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: tr}, nil
}
