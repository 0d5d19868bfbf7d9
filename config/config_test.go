package config

import (
	"strings"
	"testing"
)

func TestDefaultIsValid(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Fatalf("Default().Validate() = %v", err)
	}
	if got := Default().DBPath(); got != "data/ledger.db" {
		t.Errorf("DBPath = %q", got)
	}
}

func TestValidateNamesEveryProblem(t *testing.T) {
	c := Default()
	c.NATS.Replicas = 3
	c.NATS.Listen = "0.0.0.0:4222"
	c.Lang = "fr"
	c.HTTP.TLSCert = "cert.pem"
	err := c.Validate()
	if err == nil {
		t.Fatal("want errors")
	}
	for _, want := range []string{"replicas 3", "not a loopback", `lang "fr"`, "tls_cert and tls_key"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestClusterReplicasNeedURL(t *testing.T) {
	c := Default()
	c.NATS.URL = "nats://127.0.0.1:4222"
	c.NATS.Replicas = 3
	if err := c.Validate(); err != nil {
		t.Fatalf("cluster config refused: %v", err)
	}
}
