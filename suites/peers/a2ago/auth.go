package main

import (
	"context"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// principals maps each bearer token to the user name it authenticates.
var principals = map[string]string{
	"alice-token": "alice",
	"bob-token":   "bob",
}

// bearerAuth is a CallInterceptor that authenticates the caller from the
// Authorization header and sets CallContext.User, the SDK's notion of the
// caller. The SDK's task store then records that user as a task's owner
// and filters ListTasks by it. A request without a known bearer token is
// refused with a2a.ErrUnauthenticated before it reaches the handler.
type bearerAuth struct {
	a2asrv.PassthroughCallInterceptor
	tokens map[string]string
}

// Before implements a2asrv.CallInterceptor.
func (a bearerAuth) Before(ctx context.Context, callCtx *a2asrv.CallContext, _ *a2asrv.Request) (context.Context, any, error) {
	values, _ := callCtx.ServiceParams().Get("authorization")
	for _, v := range values {
		token, ok := strings.CutPrefix(v, "Bearer ")
		if !ok {
			continue
		}
		if name, ok := a.tokens[strings.TrimSpace(token)]; ok {
			callCtx.User = a2asrv.NewAuthenticatedUser(name, nil)
			return ctx, nil, nil
		}
	}
	return ctx, nil, a2a.ErrUnauthenticated
}
