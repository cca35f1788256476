package a2aclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// This file holds the bounds of every HTTP exchange pagewalk makes: a cap on
// the reply's size, a timeout per request, and no redirects. A target under
// test is not trusted: whatever it sends, pagewalk's memory and time stay
// bounded, and it never talks to a server it was not pointed at.

// Bounds of an exchange when HTTPOptions leaves them zero.
const (
	// DefaultMaxResponseBytes caps a reply body: 8 MiB, some 400 times a
	// ListTasks page of 100 plain tasks, so far above any honest reply.
	DefaultMaxResponseBytes int64 = 8 << 20
	// DefaultRequestTimeout bounds one request, from sending it to the
	// last byte of its reply.
	DefaultRequestTimeout = 30 * time.Second
	// KeptResponseBytes is how much of a reply body an Exchange keeps for
	// witnesses and transcripts; the reply is decoded whole, within
	// MaxResponseBytes, but only this much of it stays in memory after.
	KeptResponseBytes = 64 << 10
)

// HTTPOptions are the bounds of the HTTP client NewHTTPClient builds.
type HTTPOptions struct {
	// Timeout bounds each request, from sending it to the last byte of the
	// reply (default DefaultRequestTimeout). The caller's context bounds it
	// too.
	Timeout time.Duration
	// MaxResponseBytes caps each reply body (default
	// DefaultMaxResponseBytes). A longer reply fails with *TooLargeError.
	MaxResponseBytes int64
	// Transport sends the requests (default: a clone of
	// http.DefaultTransport that keeps up to 64 idle connections per host).
	Transport http.RoundTripper
}

// NewHTTPClient returns the HTTP client every pagewalk exchange should use:
// each request bounded by o.Timeout, each reply body by o.MaxResponseBytes,
// and redirects never followed (the Client, Discover and Control report
// them as *RedirectError).
func NewHTTPClient(o HTTPOptions) *http.Client {
	if o.Timeout <= 0 {
		o.Timeout = DefaultRequestTimeout
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = DefaultMaxResponseBytes
	}
	base := o.Transport
	if base == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		// One host, many concurrent cases or walkers: keep their
		// connections (the default keeps 2 and redials the rest).
		t.MaxIdleConnsPerHost = 64
		base = t
	}
	return &http.Client{
		Timeout:       o.Timeout,
		Transport:     &boundedTransport{base: base, limit: o.MaxResponseBytes},
		CheckRedirect: noRedirects,
	}
}

// defaultHTTP is the client used when a caller gives none.
var defaultHTTP = NewHTTPClient(HTTPOptions{})

// bounded returns a shallow copy of hc to send one exchange with, and the
// exchange's timeout. It keeps the cap of a client from NewHTTPClient and
// caps any other transport at DefaultMaxResponseBytes, follows no redirect,
// and moves hc.Timeout (DefaultRequestTimeout if none; nil hc gives the
// default client) from the client to the request's context: net/http
// cancels a request under http.Client.Timeout through its legacy path when
// the RoundTripper is not its own, and that path drops kept-alive
// connections (measured: 56-83 connections instead of 4-9 for 400 requests
// from 8 goroutines). The copy costs one small allocation per request, and
// means no exchange is unbounded whichever client a caller passes.
func bounded(hc *http.Client) (*http.Client, time.Duration) {
	if hc == nil {
		hc = defaultHTTP
	}
	c := *hc
	if _, ok := c.Transport.(*boundedTransport); !ok {
		base := c.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		c.Transport = &boundedTransport{base: base, limit: DefaultMaxResponseBytes}
	}
	c.CheckRedirect = noRedirects
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultRequestTimeout
	}
	c.Timeout = 0
	return &c, timeout
}

// noRedirects makes the http.Client hand back a redirect instead of
// following it: a redirect to another host would send pagewalk's requests
// (and bearer tokens) to a server it was not pointed at, and its verdicts
// would then be about that server.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// boundedTransport caps reply bodies. The http.Client cannot: its Timeout
// bounds time, not size, and io.LimitReader would silently truncate a reply
// into one that merely looks malformed.
type boundedTransport struct {
	base  http.RoundTripper
	limit int64
}

// RoundTrip sends req and wraps the reply body in the cap. A reply that
// declares a longer Content-Length fails at once, unread.
func (t *boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > t.limit {
		resp.Body.Close()
		return nil, &TooLargeError{Limit: t.limit, Seen: resp.ContentLength, Declared: true}
	}
	resp.Body = &cappedBody{rc: resp.Body, limit: t.limit}
	return resp, nil
}

// cappedBody fails with *TooLargeError once more than limit bytes are read.
type cappedBody struct {
	rc    io.ReadCloser
	limit int64
	n     int64
	err   error
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	// Read at most one byte past the cap: that byte proves the excess.
	if room := b.limit + 1 - b.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.rc.Read(p)
	b.n += int64(n)
	if b.n > b.limit {
		b.err = &TooLargeError{Limit: b.limit, Seen: b.n}
		return n, b.err
	}
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }

// TooLargeError is a reply longer than the cap on reply size.
type TooLargeError struct {
	// Limit is the cap (HTTPOptions.MaxResponseBytes).
	Limit int64
	// Seen is how many bytes were read before giving up (Limit+1: at least
	// that many were sent), or the declared Content-Length.
	Seen int64
	// Declared is true when Seen is the reply's Content-Length, refused
	// before reading.
	Declared bool
}

// Param names the parameter that sets the cap.
func (e *TooLargeError) Param() string { return "max-response-bytes" }

// Error names the cap and the size seen.
func (e *TooLargeError) Error() string {
	if e.Declared {
		return fmt.Sprintf("the reply exceeds the %s cap on reply size (%s): it declares Content-Length %d", byteSize(e.Limit), e.Param(), e.Seen)
	}
	return fmt.Sprintf("the reply exceeds the %s cap on reply size (%s): read %d+ bytes", byteSize(e.Limit), e.Param(), e.Seen)
}

// RedirectError is a reply that redirects (301, 302, 303, 307 or 308).
// pagewalk never follows one: the verdicts would be about another server.
type RedirectError struct {
	// Status is the reply's status line, e.g. "307 Temporary Redirect".
	Status string
	// From is the URL requested; Location the URL the reply points to,
	// resolved against From ("" when the reply names none).
	From, Location string
}

// Error names the redirect and where it points.
func (e *RedirectError) Error() string {
	if e.Location == "" {
		return fmt.Sprintf("the target answered %s without a Location: pagewalk follows no redirect: give the final URL", e.Status)
	}
	return fmt.Sprintf("the target answered %s: the redirect to %s was not followed (pagewalk follows no redirect; it may lead to another server): give the final URL", e.Status, e.Location)
}

// TimeoutError is a request that got no complete reply within its timeout.
type TimeoutError struct {
	// Limit is the per-request timeout (HTTPOptions.Timeout).
	Limit time.Duration
	// Reading is true when the headers had come and the body was still
	// arriving.
	Reading bool
	// Err is the error the HTTP client gave (a net.Error whose Timeout is
	// true).
	Err error
}

// Error names the timeout. (The CLI flags that set it differ by command,
// so it is called what it is: the per-request timeout.)
func (e *TimeoutError) Error() string {
	if e.Reading {
		return fmt.Sprintf("the reply body did not finish within the %s per-request timeout", e.Limit)
	}
	return fmt.Sprintf("no reply within the %s per-request timeout", e.Limit)
}

// Timeout reports true, as net.Error does for timeouts.
func (e *TimeoutError) Timeout() bool { return true }

// Unwrap returns the HTTP client's error.
func (e *TimeoutError) Unwrap() error { return e.Err }

// TruncatedError is a reply whose connection ended before the body did.
type TruncatedError struct {
	// Read is how many body bytes arrived; Declared the Content-Length
	// (-1 when the body was chunked).
	Read, Declared int64
	Err            error
}

// Error says how much of the body arrived.
func (e *TruncatedError) Error() string {
	if e.Declared >= 0 {
		return fmt.Sprintf("the connection ended after %d of the %d bytes the reply declared: %v", e.Read, e.Declared, e.Err)
	}
	return fmt.Sprintf("the connection ended after %d bytes, before the reply's last chunk: %v", e.Read, e.Err)
}

// Unwrap returns the read error.
func (e *TruncatedError) Unwrap() error { return e.Err }

// exchange sends req with pagewalk's bounds (see bounded) and reads the
// whole reply, bounded by the cap, then closes it. It returns the reply and
// its body, or a transport error in pagewalk's terms (*TooLargeError,
// *RedirectError, *TimeoutError, *TruncatedError); when the body could not
// be read whole, it returns the reply, what arrived and the error. The body
// is read whole: Fields keeps each member's raw bytes for the verdicts, so a
// streaming decoder would not lower the peak, and the cap bounds it.
func exchange(hc *http.Client, req *http.Request) (*http.Response, []byte, error) {
	hc, timeout := bounded(hc)
	ctx := req.Context()
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := hc.Do(req.WithContext(rctx))
	if err != nil {
		return nil, nil, transportError(ctx, timeout, err, false)
	}
	defer resp.Body.Close()
	if isRedirect(resp.StatusCode) {
		loc := resp.Header.Get("Location")
		if u, err := resp.Request.URL.Parse(loc); err == nil && loc != "" {
			loc = u.String()
		}
		return nil, nil, &RedirectError{Status: resp.Status, From: req.URL.String(), Location: loc}
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		var tl *TooLargeError
		switch {
		case errors.As(err, &tl):
			return resp, body, tl
		case errors.Is(err, io.ErrUnexpectedEOF):
			return resp, body, &TruncatedError{Read: int64(len(body)), Declared: resp.ContentLength, Err: err}
		}
		return resp, body, transportError(ctx, timeout, err, true)
	}
	return resp, body, nil
}

// transportError unwraps the http.Client's *url.Error (Do adds the method
// and URL itself) and names the request's timeout as such. The end of the
// caller's context ctx (a total budget, an interrupt) stays the context's
// error.
func transportError(ctx context.Context, timeout time.Duration, err error, reading bool) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var tl *TooLargeError
	if errors.As(err, &tl) {
		return tl
	}
	if ctx.Err() != nil {
		if cause := context.Cause(ctx); cause != ctx.Err() {
			return fmt.Errorf("%w: %w", ctx.Err(), cause)
		}
		return ctx.Err()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return &TimeoutError{Limit: timeout, Reading: reading, Err: err}
	}
	return err
}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// byteSize renders n as "8 MiB", "512 KiB" or "100 bytes".
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
