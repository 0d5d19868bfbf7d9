package config

import _ "embed"

// NATSAccounts is config/nats/accounts.conf, the accounts, users and
// permissions of the ledger's NATS servers, as the program carries it: the
// cluster's nodes include the file itself, the embedded server parses this
// copy (events/jetstream). One source, so both deployments enforce the same
// rules. Each user's password is the variable <USER>_NATS_PASSWORD.
//
//go:embed nats/accounts.conf
var NATSAccounts string
