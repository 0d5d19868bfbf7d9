// Package docs holds the documents the program itself serves: the HTTP
// API's OpenAPI description (openapi.yaml), which `ledger serve` answers at
// GET /api/openapi.yaml. The other files of this folder are for people.
package docs

import _ "embed"

// OpenAPI is the HTTP API's OpenAPI 3.1 description.
//
//go:embed openapi.yaml
var OpenAPI []byte
