package a2aclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/pagewalk/pagewalk/docs/controlapi"
)

// Binding names an A2A protocol binding pagewalk speaks.
type Binding string

// The bindings pagewalk speaks.
const (
	JSONRPC  Binding = "jsonrpc"
	HTTPJSON Binding = "http"
)

// ProtocolVersion is the A2A version pagewalk sends and selects.
const ProtocolVersion = "1.0"

// ControlExtensionURI identifies the control API in an Agent Card.
const ControlExtensionURI = controlapi.ExtensionURI

// Interface is one A2A endpoint from the Agent Card.
type Interface struct {
	Binding Binding
	URL     string
	Tenant  string
}

// Card is a discovered Agent Card.
type Card struct {
	URL        string
	Raw        json.RawMessage
	Name       string
	Interfaces []Interface
	// ControlURL is the control API's base URL if the card declares the
	// pagewalk control extension.
	ControlURL string
}

// Interface returns the first interface of binding b.
func (c *Card) Interface(b Binding) (Interface, bool) {
	for _, i := range c.Interfaces {
		if i.Binding == b {
			return i, true
		}
	}
	return Interface{}, false
}

// CardURL turns a --target value into the Agent Card URL: a URL that already
// names a .json document is used as is; any other URL is a base URL, to
// which /.well-known/agent-card.json is appended.
func CardURL(target string) (string, error) {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", paramErr("target", "want an http(s) URL of an agent card or a base URL, got %q", target)
	}
	if strings.HasSuffix(u.Path, ".json") {
		return u.String(), nil
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/.well-known/agent-card.json"
	return u.String(), nil
}

// Discover fetches and parses the Agent Card for target. It keeps the
// JSONRPC and HTTP+JSON interfaces whose protocolVersion is 1.0
// (LT-CARD-6, LT-CARD-7). The fetch is bounded like every exchange (see
// NewHTTPClient): a redirect is an error, not followed.
func Discover(ctx context.Context, hc *http.Client, target string) (*Card, error) {
	cardURL, err := CardURL(target)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, body, err := exchange(hc, req)
	if err != nil {
		return nil, fmt.Errorf("agent card %s: %w", cardURL, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("agent card %s: HTTP %s", cardURL, resp.Status)
	}
	return ParseCard(cardURL, body)
}

// ParseCard parses an Agent Card document fetched from cardURL.
func ParseCard(cardURL string, body []byte) (*Card, error) {
	var doc struct {
		Name                string `json:"name"`
		SupportedInterfaces []struct {
			URL             string `json:"url"`
			ProtocolBinding string `json:"protocolBinding"`
			ProtocolVersion string `json:"protocolVersion"`
			Tenant          string `json:"tenant"`
		} `json:"supportedInterfaces"`
		Capabilities struct {
			Extensions []struct {
				URI    string         `json:"uri"`
				Params map[string]any `json:"params"`
			} `json:"extensions"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("agent card %s: not JSON: %w", cardURL, err)
	}
	c := &Card{URL: cardURL, Raw: body, Name: doc.Name}
	var other []string
	for _, i := range doc.SupportedInterfaces {
		var b Binding
		switch strings.ToUpper(i.ProtocolBinding) {
		case "JSONRPC":
			b = JSONRPC
		case "HTTP+JSON":
			b = HTTPJSON
		}
		if b == "" || i.ProtocolVersion != ProtocolVersion {
			other = append(other, fmt.Sprintf("%s %s", i.ProtocolBinding, i.ProtocolVersion))
			continue
		}
		u, err := resolve(cardURL, i.URL)
		if err != nil {
			return nil, fmt.Errorf("agent card %s: interface url %q: %w", cardURL, i.URL, err)
		}
		c.Interfaces = append(c.Interfaces, Interface{Binding: b, URL: u, Tenant: i.Tenant})
	}
	if len(c.Interfaces) == 0 {
		return nil, fmt.Errorf("agent card %s: no JSONRPC or HTTP+JSON interface with protocolVersion %s in supportedInterfaces (found: %s)",
			cardURL, ProtocolVersion, strings.Join(other, ", "))
	}
	for _, e := range doc.Capabilities.Extensions {
		if e.URI == ControlExtensionURI {
			if u, ok := e.Params["url"].(string); ok {
				if abs, err := resolve(cardURL, u); err == nil {
					c.ControlURL = abs
				}
			}
		}
	}
	return c, nil
}

func resolve(base, ref string) (string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(b.ResolveReference(r).String(), "/"), nil
}
