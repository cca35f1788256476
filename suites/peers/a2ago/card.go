package main

import (
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// jsonrpcPath is where the JSON-RPC binding is served; the HTTP+JSON
// binding is served at the root.
const jsonrpcPath = "/jsonrpc"

// bearerScheme names the card's one security scheme.
const bearerScheme a2a.SecuritySchemeName = "bearer"

// agentCard describes the agent at base: both bindings, protocol version
// 1.0 (a2a.NewAgentInterface fills in a2a.Version), bearer authentication.
func agentCard(base string) *a2a.AgentCard {
	return &a2a.AgentCard{
		Name:        "a2a-go peer",
		Description: "An agent built on a2a-go v2 for pagewalk's peer test: completes tasks with an artifact, or asks for input.",
		Version:     "1.0.0",
		SupportedInterfaces: []*a2a.AgentInterface{
			a2a.NewAgentInterface(base+jsonrpcPath, a2a.TransportProtocolJSONRPC),
			a2a.NewAgentInterface(base, a2a.TransportProtocolHTTPJSON),
		},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		SecuritySchemes: a2a.NamedSecuritySchemes{
			bearerScheme: a2a.HTTPAuthSecurityScheme{Scheme: "Bearer", Description: "a static bearer token per principal"},
		},
		SecurityRequirements: a2a.SecurityRequirementsOptions{
			{bearerScheme: a2a.SecuritySchemeScopes{}},
		},
		Skills: []a2a.AgentSkill{{
			ID:          "settle",
			Name:        "Settle",
			Description: "Completes the task with a text artifact; asks for input when the message mentions \"input\".",
			Tags:        []string{"test"},
			Examples:    []string{"summarise this", "I will give you input later"},
		}},
	}
}
