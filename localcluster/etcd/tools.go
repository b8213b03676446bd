//go:build tools

// Package tools records the etcd main package (the module root of
// go.etcd.io/etcd/server/v3, a wrapper around etcdmain.Main) so that
// `go mod tidy` keeps its dependencies.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
)
