package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func init() {
	extraCommands = append(extraCommands, func(c *cli) *cobra.Command { return c.healthCommand() })
}

// healthCommand asks a running `ledger serve` whether it is ready, for a
// container's healthcheck (docker-compose.yml): the image has no curl nor
// wget, and needs none.
func (c *cli) healthCommand() *cobra.Command {
	var url string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "health",
		Short: "Ask a running ledger server whether it is ready (GET /readyz): exit 0 ready, 1 not",
		Long: `Health asks the ledger server at http.addr (or --url) for /readyz, the
readiness docs/deploy.md describes: the log answers, the stream guard finds
nothing wrong, the projector runs and is near the log. It prints the answer
and exits 0 when the server is ready, 1 when it is not or does not answer.
A server listening on every address (0.0.0.0:8080) is asked on 127.0.0.1.
No token is needed. docker-compose.yml runs it as the ledger container's
healthcheck.`,
		Example: `  ledger health
  ledger health --url http://127.0.0.1:8080`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if url == "" {
				cfg, err := c.config()
				if err != nil {
					return err
				}
				url = readyURL(cfg.HTTP.Addr, cfg.HTTP.TLSCert != "")
			}
			ctx, cancel := context.WithTimeout(c.ctx, timeout)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, "GET", strings.TrimSuffix(url, "/")+"/readyz", nil)
			if err != nil {
				return usagef("--url %q: %v", url, err)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				return fmt.Errorf("not ready: %s does not answer: %w", url, err)
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
			fmt.Fprintln(c.stdout, strings.TrimSpace(string(body)))
			if res.StatusCode != http.StatusOK {
				return fmt.Errorf("not ready: %s/readyz answered %s", strings.TrimSuffix(url, "/"), res.Status)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&url, "url", "", "the server's address (default: http.addr, on 127.0.0.1 when it listens on every address)")
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
