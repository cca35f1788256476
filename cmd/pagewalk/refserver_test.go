package main

import (
	"context"
	"testing"

	"github.com/pagewalk/pagewalk/reference"
)

// startReference starts an in-process reference on an in-memory database
// with opts, listening on a free 127.0.0.1 port, closed when t ends, and
// returns its base URL.
func startReference(t *testing.T, opts ...reference.Option) string {
	t.Helper()
	srv, err := reference.New(context.Background(), append([]reference.Option{reference.WithDB(":memory:")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	u, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return u
}
