package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// azSession is the Azure CLI signed in to a fresh `azk emulator` with the
// lines the emulator prints (az cloud register, az login), in a config
// folder of its own.
type azSession struct {
	t     *testing.T
	az    string
	env   []string
	login []string // the printed az login line, split into fields
	// loginOutput is what az login printed (the subscriptions it found).
	loginOutput string
}

// signedInAzureCLI starts `azk emulator` and signs the Azure CLI in to it.
// It skips when az is not installed or with -short.
func signedInAzureCLI(t *testing.T) *azSession {
	t.Helper()
	az, err := exec.LookPath("az")
	if err != nil {
		t.Skip("the Azure CLI (az) is not installed: skipping (Debian: apt-get install azure-cli)")
	}
	if testing.Short() {
		t.Skip("-short: the Azure CLI takes seconds a command")
	}
	out := serveEmulatorCommand(t, filepath.Join(t.TempDir(), "state"), "azure-native:subscriptionId")
	printed := func(re string) []string {
		m := regexp.MustCompile(`(?m)^\s*` + re + `$`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("the start-up message lacks %s:\n%s", re, out)
		}
		return strings.Fields(m[0])
	}
	caBundle := strings.TrimPrefix(printed(`export REQUESTS_CA_BUNDLE=\S+`)[1], "REQUESTS_CA_BUNDLE=")
	register := printed(`az cloud register .*`)
	s := &azSession{t: t, az: az, login: printed(`az login .*`),
		env: append(os.Environ(), "AZURE_CONFIG_DIR="+t.TempDir(), "REQUESTS_CA_BUNDLE="+caBundle,
			"AZURE_CORE_COLLECT_TELEMETRY=false", "AZURE_CORE_NO_COLOR=true", "AZURE_CORE_SURVEY_MESSAGE=false")}
	t.Logf("Azure CLI %s", strings.TrimSpace(s.must("version", "--query", `"azure-cli"`, "-o", "tsv")))
	s.must(register[1:]...)
	s.must("cloud", "set", "-n", register[4])
	s.loginOutput = s.must(s.login[1:]...)
	return s
}

// must runs az with args and returns its standard output (JSON for -o
// json: warnings go to standard error); a failure ends the test with both.
func (s *azSession) must(args ...string) string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.az, args...)
	cmd.Env = s.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	shown := strings.Join(redactArgs(args), " ")
	if err := cmd.Run(); err != nil {
		s.t.Fatalf("az %s: %v\n%s%s", shown, err, stdout.String(), stderr.String())
	}
	s.t.Logf("az %s: ok (%s)", shown, time.Since(start).Round(100*time.Millisecond))
	return stdout.String()
}
