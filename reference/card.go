package reference

import (
	"net/http"

	"github.com/pagewalk/pagewalk/docs/controlapi"
)

// ControlExtensionURI identifies the pagewalk control API in an Agent Card's
// capabilities.extensions. Its params carry the control API's base URL.
const ControlExtensionURI = controlapi.ExtensionURI

// baseURL is the public base URL: --public-url, or the scheme and Host of
// the request, so the card is right behind a container's port mapping.
func (s *Server) baseURL(r *http.Request) string {
	if s.cfg.publicURL != "" {
		return s.cfg.publicURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// card returns the Agent Card (LT-CARD-*): both HTTP interfaces with
// protocolVersion 1.0, bearer auth, and the control extension when enabled.
func (s *Server) card(base string) map[string]any {
	caps := map[string]any{"streaming": false, "pushNotifications": false}
	if s.cfg.controlToken != "" {
		caps["extensions"] = []map[string]any{{
			"uri":         ControlExtensionURI,
			"description": "pagewalk test-only control API: seed tasks, move them, drive the server clock, reset the store",
			"required":    false,
			"params":      map[string]any{"url": base + "/control"},
		}}
	}
	return map[string]any{
		"name":                "pagewalk reference agent",
		"description":         "Reference A2A 1.0 server for ListTasks pagination conformance: keyset paging, signed bound page tokens.",
		"version":             s.cfg.version,
		"supportedInterfaces": s.interfaces(base),
		"capabilities":        caps,
		"defaultInputModes":   []string{"text/plain"},
		"defaultOutputModes":  []string{"text/plain"},
		"skills": []map[string]any{{
			"id":          "echo",
			"name":        "Echo",
			"description": `Completes the task and echoes the message as an artifact; the words "fail", "input" and "work" leave it failed, input-required or working instead.`,
			"tags":        []string{"test"},
		}},
		"securitySchemes": map[string]any{
			"bearer": map[string]any{"httpAuthSecurityScheme": map[string]any{"scheme": "Bearer"}},
		},
		"securityRequirements": []map[string]any{{"schemes": map[string]any{"bearer": map[string]any{"list": []string{}}}}},
	}
}

// interfaces lists both bindings, once per declared tenant (or once,
// without a tenant, when none is declared).
func (s *Server) interfaces(base string) []map[string]any {
	tenants := s.cfg.cardTenants
	if len(tenants) == 0 {
		tenants = []string{""}
	}
	var out []map[string]any
	for _, t := range tenants {
		for _, i := range []map[string]any{
			{"url": base + "/jsonrpc", "protocolBinding": "JSONRPC", "protocolVersion": SupportedVersion},
			{"url": base, "protocolBinding": "HTTP+JSON", "protocolVersion": SupportedVersion},
		} {
			if t != "" {
				i["tenant"] = t
			}
			out = append(out, i)
		}
	}
	return out
}

func (s *Server) serveCard(w http.ResponseWriter, r *http.Request) {
	base := s.baseURL(r)
	writeJSON(w, http.StatusOK, "application/json", s.seams.reply.card(s.card(base), base))
}
