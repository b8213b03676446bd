//go:build tools

// Package tools records the CoreDNS main package (the module root of
// github.com/coredns/coredns) so that `go mod tidy` keeps its dependencies.
package tools

import (
	_ "github.com/coredns/coredns"
)
