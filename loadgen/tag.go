package loadgen

import (
	"net/url"
	"strconv"
	"strings"
)

// DepthFragment is the URL-fragment key that tags a request with its page
// depth. Go's HTTP client sends only the request URI, so the fragment never
// goes on the wire, but vegeta keeps it in Result.URL.
const DepthFragment = "depth"

// TagURL returns u with the fragment "#depth=N" (replacing any fragment).
func TagURL(u string, depth int) string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u = u[:i]
	}
	return u + "#" + DepthFragment + "=" + strconv.Itoa(depth)
}

// DepthOf returns the depth tagged in a result URL by TagURL.
func DepthOf(u string) (int, bool) {
	i := strings.LastIndexByte(u, '#')
	if i < 0 {
		return 0, false
	}
	frag, err := url.PathUnescape(u[i+1:])
	if err != nil {
		return 0, false
	}
	v, ok := strings.CutPrefix(frag, DepthFragment+"=")
	if !ok {
		return 0, false
	}
	d, err := strconv.Atoi(v)
	if err != nil || d < 1 {
		return 0, false
	}
	return d, true
}

// Endpoint returns a result URL without its query and fragment: the
// endpoint that was attacked.
func Endpoint(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		return u[:i]
	}
	return u
}
