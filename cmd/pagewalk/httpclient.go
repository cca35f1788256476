package main

import (
	"fmt"
	"io"
	"net/http"
	"time"
)

// newHTTPClient returns the HTTP client of a check: each request bounded
// by timeout, each reply body by maxBytes.
//
// TODO(lead): replace with a2aclient.NewHTTPClient(a2aclient.HTTPOptions{
// Timeout: timeout, MaxResponseBytes: maxBytes}) once the reliability
// work lands; this local transport does the same for the check command
// until then.
func newHTTPClient(timeout time.Duration, maxBytes int64) *http.Client {
	base := http.DefaultTransport.(*http.Transport).Clone()
	return &http.Client{Timeout: timeout, Transport: &cappedTransport{base: base, limit: maxBytes}}
}

// cappedTransport fails a reply whose body exceeds limit. The http.Client
// cannot: its Timeout bounds time, not size, and a plain io.LimitReader
// would silently cut a reply into one that merely looks malformed.
type cappedTransport struct {
	base  http.RoundTripper
	limit int64
}

// RoundTrip sends req and caps the reply body.
func (t *cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > t.limit {
		resp.Body.Close()
		return nil, &tooLargeError{limit: t.limit, seen: resp.ContentLength}
	}
	resp.Body = &cappedBody{rc: resp.Body, limit: t.limit}
	return resp, nil
}

type cappedBody struct {
	rc       io.ReadCloser
	limit, n int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if room := b.limit + 1 - b.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.rc.Read(p)
	b.n += int64(n)
	if b.n > b.limit {
		return n, &tooLargeError{limit: b.limit, seen: b.n}
	}
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }

// tooLargeError is a reply longer than --max-response-bytes.
type tooLargeError struct{ limit, seen int64 }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("the reply is longer than the %d-byte cap (--max-response-bytes): %d+ bytes", e.limit, e.seen)
}
