package a2aclient

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// ParamError is bad input for a named parameter. The library names the
// parameter ("principal"); the CLI turns that into its flag ("--principal").
type ParamError struct {
	Param string
	Msg   string
}

// Error renders "param: message".
func (e *ParamError) Error() string { return e.Param + ": " + e.Msg }

func paramErr(param, format string, args ...any) error {
	return &ParamError{Param: param, Msg: fmt.Sprintf(format, args...)}
}

// Principal is a named identity and its bearer token.
type Principal struct {
	Name, Token string
}

// ParsePrincipals parses NAME=TOKEN values; names must be unique.
func ParsePrincipals(vals []string) ([]Principal, error) {
	var out []Principal
	seen := map[string]bool{}
	for _, v := range vals {
		name, tok, ok := strings.Cut(v, "=")
		if !ok || name == "" || tok == "" {
			return nil, paramErr("principal", "want NAME=TOKEN, got %q", v)
		}
		if seen[name] {
			return nil, paramErr("principal", "%s given twice", name)
		}
		seen[name] = true
		out = append(out, Principal{Name: name, Token: tok})
	}
	return out, nil
}

// BindingAll is the binding choice that means every binding the card
// declares.
const BindingAll = "all"

// ParseBindings parses a binding choice: "all" (or ""), "jsonrpc" or
// "http" (also "http+json", "rest").
func ParseBindings(s string) ([]Binding, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", BindingAll:
		return []Binding{JSONRPC, HTTPJSON}, nil
	case "jsonrpc", "json-rpc":
		return []Binding{JSONRPC}, nil
	case "http", "http+json", "rest":
		return []Binding{HTTPJSON}, nil
	}
	return nil, paramErr("binding", "want jsonrpc, http or all, got %q", s)
}

// SelectBindings returns the bindings named by choice that the card
// declares. Naming one binding the card lacks is an error; "all" keeps
// those it has.
func SelectBindings(card *Card, choice string) ([]Binding, error) {
	want, err := ParseBindings(choice)
	if err != nil {
		return nil, err
	}
	var out []Binding
	for _, b := range want {
		if _, ok := card.Interface(b); ok {
			out = append(out, b)
		} else if len(want) == 1 {
			return nil, paramErr("binding", "%s: the agent card at %s declares no %s interface with protocolVersion %s", choice, card.URL, b, ProtocolVersion)
		}
	}
	if len(out) == 0 {
		return nil, paramErr("binding", "the agent card at %s declares no JSONRPC or HTTP+JSON interface with protocolVersion %s", card.URL, ProtocolVersion)
	}
	return out, nil
}

// ResolveControl returns the control API client for a target: the URL
// given (else the one the card declares) with the token given. It returns
// nil when there is no control API to use, and an error when a URL was
// given without a token or is not an http(s) URL.
func ResolveControl(card *Card, url, token string, hc *http.Client) (*Control, error) {
	if url != "" && !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
		return nil, paramErr("control", "want the control API's http(s) base URL, e.g. http://127.0.0.1:8080/control, got %q", url)
	}
	if url != "" && token == "" {
		return nil, paramErr("control-token", "required with control %s", url)
	}
	if url == "" && card != nil {
		url = card.ControlURL
	}
	if url == "" || token == "" {
		return nil, nil
	}
	return &Control{HTTP: hc, URL: url, Token: token}, nil
}

// Preflight makes one authenticated ListTasks call (pageSize 1) as each
// principal on binding b and returns an error naming the first principal
// whose credentials the server rejects (HTTP 401 or 403, or an
// UNAUTHENTICATED / PERMISSION_DENIED error). Other failures are left to
// the checks that judge them.
func Preflight(ctx context.Context, hc *http.Client, card *Card, b Binding, tenant string, ps []Principal) error {
	iface, ok := card.Interface(b)
	if !ok {
		return paramErr("binding", "the agent card declares no %s interface", b)
	}
	for _, p := range ps {
		c := &Client{HTTP: hc, Iface: iface, Principal: p.Name, Token: p.Token, Tenant: tenant}
		page, err := c.ListTasks(ctx, ListRequest{PageSize: Ptr(1), HistoryLength: Ptr(0)})
		if err != nil {
			return fmt.Errorf("preflight ListTasks as %s on %s: %w", p.Name, b, err)
		}
		if st := page.X.Status; st == http.StatusUnauthorized || st == http.StatusForbidden {
			return &CredentialError{Principal: p.Name, Status: st, Detail: page.Describe()}
		}
		if e := page.Err; e != nil && (e.Status == "UNAUTHENTICATED" || e.Status == "PERMISSION_DENIED") {
			return &CredentialError{Principal: p.Name, Status: page.X.Status, Detail: page.Describe()}
		}
	}
	return nil
}

// CredentialError is a principal whose credentials the server rejected.
type CredentialError struct {
	Principal string
	Status    int
	Detail    string
}

// Error says whose credentials were rejected and how.
func (e *CredentialError) Error() string {
	return fmt.Sprintf("credentials for %s were rejected (HTTP %d: %s)", e.Principal, e.Status, e.Detail)
}
