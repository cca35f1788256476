package container

import (
	"os"

	tclog "github.com/testcontainers/testcontainers-go/log"
)

// init applies the settings this repository's machines need before
// testcontainers-go reads its configuration (once, on first use): no Ryuk
// (its image cannot be pulled; containers are terminated by the suite and
// swept by .ci/run), the host override (the bridge gateway IP is not
// loopback when the tests run inside a container), no credential helpers,
// and no log noise. Values already in the environment win.
func init() {
	for k, v := range map[string]string{
		"TESTCONTAINERS_RYUK_DISABLED": "true",
		"TESTCONTAINERS_HOST_OVERRIDE": "127.0.0.1",
		"DOCKER_AUTH_CONFIG":           "{}",
	} {
		if _, set := os.LookupEnv(k); !set {
			os.Setenv(k, v)
		}
	}
	if os.Getenv("PAGEWALK_TESTCONTAINERS_LOG") == "" {
		tclog.SetDefault(tclog.NewNoopLogger())
	}
}
