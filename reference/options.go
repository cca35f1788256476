package reference

import (
	"log/slog"
	"strings"
	"time"
)

// config holds everything New needs; Options fill it in.
type config struct {
	dbPath         string
	principals     map[string]string // token -> principal name
	principalNames []string
	controlToken   string
	tokenTTL       time.Duration
	keyFile        string
	faults         []Fault
	faultSeed      uint64
	faultSeedSet   bool
	now            func() time.Time
	logger         *slog.Logger
	rateLimit      float64
	rateBurst      int
	afterOp        string // how statusTimestampAfter compares: ">=" or ">"
	defaultHistory int    // -1: all
	publicURL      string
	version        string
	cardTenants    []string
	timeouts       Timeouts
	allowReset     bool
	preseed        Preseed
	// seams are the server's strategies (seams.go): the clean ones unless
	// a fault mode swapped some.
	seams seams
}

// Option configures a Server.
type Option func(*config) error

// WithDB sets the SQLite database path; ":memory:" (the default) keeps the
// store in memory.
func WithDB(path string) Option {
	return func(c *config) error {
		if path == "" {
			return paramErr("db", "empty path; give a file path or :memory:")
		}
		c.dbPath = path
		return nil
	}
}

// WithPrincipal maps the bearer token to the principal name. It may be
// given several times; each name and each token must be unique.
func WithPrincipal(name, token string) Option {
	return func(c *config) error {
		if name == "" || token == "" {
			return paramErr("principal", "want NAME=TOKEN with both parts non-empty, got %q=%q", name, token)
		}
		if _, dup := c.principals[token]; dup {
			return paramErr("principal", "%s: token already belongs to another principal", name)
		}
		for _, n := range c.principalNames {
			if n == name {
				return paramErr("principal", "%s: given twice", name)
			}
		}
		c.principals[token] = name
		c.principalNames = append(c.principalNames, name)
		return nil
	}
}

// ParsePrincipal splits a NAME=TOKEN flag value.
func ParsePrincipal(v string) (name, token string, err error) {
	name, token, ok := strings.Cut(v, "=")
	if !ok || name == "" || token == "" {
		return "", "", paramErr("principal", "want NAME=TOKEN, got %q", v)
	}
	return name, token, nil
}

// WithControlToken turns on the control API under the given bearer token.
func WithControlToken(token string) Option {
	return func(c *config) error { c.controlToken = token; return nil }
}

// WithTokenTTL sets the page-token lifetime (default 10m).
func WithTokenTTL(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return paramErr("token-ttl", "must be positive, got %s", d)
		}
		c.tokenTTL = d
		return nil
	}
}

// WithKeyFile keeps the signing keys in a file instead of the database.
func WithKeyFile(path string) Option {
	return func(c *config) error { c.keyFile = path; return nil }
}

// WithFaults turns the server into a known-broken variant.
func WithFaults(faults ...Fault) Option {
	return func(c *config) error { c.faults = append(c.faults, faults...); return nil }
}

// WithFaultSeed seeds the random choices of fault modes that make any (the
// short-pages variant), so that a run reproduces. Without it the server
// picks a seed; FaultSeed reports it.
func WithFaultSeed(seed uint64) Option {
	return func(c *config) error { c.faultSeed, c.faultSeedSet = seed, true; return nil }
}

// WithRealClock sets the source of real time under the controllable clock.
func WithRealClock(now func() time.Time) Option {
	return func(c *config) error { c.now = now; return nil }
}

// WithLogger sets the structured request logger (default: none).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error { c.logger = l; return nil }
}

// WithRateLimit limits each principal to rps requests per second with the
// given burst. Zero rps (the default) means no limit.
func WithRateLimit(rps float64, burst int) Option {
	return func(c *config) error {
		if rps < 0 || burst < 0 {
			return paramErr("rate-limit", "must not be negative")
		}
		c.rateLimit, c.rateBurst = rps, burst
		return nil
	}
}

// WithExclusiveTimestampAfter makes statusTimestampAfter exclusive (>), for
// experiments; the proto says inclusive (>=), which is the default.
func WithExclusiveTimestampAfter(on bool) Option {
	return func(c *config) error {
		c.afterOp = ">="
		if on {
			c.afterOp = ">"
		}
		return nil
	}
}

// WithDefaultHistoryLength sets how many messages an unset historyLength
// returns; -1 (the default) means the whole history.
func WithDefaultHistoryLength(n int) Option {
	return func(c *config) error {
		if n < -1 {
			return paramErr("default-history-length", "must be -1 (all) or more, got %d", n)
		}
		c.defaultHistory = n
		return nil
	}
}

// WithPublicURL fixes the base URL advertised in the Agent Card; by default
// it is derived from each request's Host header.
func WithPublicURL(u string) Option {
	return func(c *config) error { c.publicURL = strings.TrimRight(u, "/"); return nil }
}

// WithVersion sets the agent version shown in the Agent Card.
func WithVersion(v string) Option {
	return func(c *config) error { c.version = v; return nil }
}

// WithCardTenant declares tenant in the Agent Card: every interface is
// listed once per declared tenant, with that tenant. Tenants the card
// declares are an authorization boundary the spec holds the server to
// (LT-AUTHZ-2). It may be given several times.
func WithCardTenant(tenant string) Option {
	return func(c *config) error {
		if tenant == "" {
			return paramErr("card-tenant", "empty tenant")
		}
		c.cardTenants = append(c.cardTenants, tenant)
		return nil
	}
}

// Timeouts bound how long one connection may hold the server. Every field
// must be positive: a hardened server drops stalled clients.
type Timeouts struct {
	// ReadHeader bounds reading a request's headers.
	ReadHeader time.Duration
	// Read bounds reading a whole request, headers and body: a body that
	// is declared but never sent, or dripped, is cut off after it.
	Read time.Duration
	// Write bounds handling a request and writing its reply, from the end
	// of its headers. Raise it for seeds of millions of tasks.
	Write time.Duration
	// Idle bounds how long a keep-alive connection waits for its next
	// request.
	Idle time.Duration
}

// DefaultTimeouts are the server's connection timeouts unless options
// change them.
var DefaultTimeouts = Timeouts{ReadHeader: 10 * time.Second, Read: 60 * time.Second, Write: 120 * time.Second, Idle: 60 * time.Second}

func positive(param string, d time.Duration) error {
	if d <= 0 {
		return paramErr(param, "must be positive, got %s", d)
	}
	return nil
}

// WithReadHeaderTimeout sets Timeouts.ReadHeader.
func WithReadHeaderTimeout(d time.Duration) Option {
	return func(c *config) error { c.timeouts.ReadHeader = d; return positive("read-header-timeout", d) }
}

// WithReadTimeout sets Timeouts.Read.
func WithReadTimeout(d time.Duration) Option {
	return func(c *config) error { c.timeouts.Read = d; return positive("read-timeout", d) }
}

// WithWriteTimeout sets Timeouts.Write.
func WithWriteTimeout(d time.Duration) Option {
	return func(c *config) error { c.timeouts.Write = d; return positive("write-timeout", d) }
}

// WithIdleTimeout sets Timeouts.Idle.
func WithIdleTimeout(d time.Duration) Option {
	return func(c *config) error { c.timeouts.Idle = d; return positive("idle-timeout", d) }
}

// WithAllowReset lets the control API's reset delete the whole store
// ({"all": true}); without it a reset must name what it deletes (an id
// prefix or contexts), so a caller cannot wipe data it did not create.
func WithAllowReset(on bool) Option {
	return func(c *config) error { c.allowReset = on; return nil }
}
