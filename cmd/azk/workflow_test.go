package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/testkit"
	"github.com/azkcli/azk/internal/views"
)

// The shipped workflow's own steps, run as GitHub's runner would (read from
// docs/ci/github-actions.yml and action.yml, never copied here), against the
// emulator behind a proxy that counts the writes, for a sequence of pull
// requests: after each merge job Azure received exactly the writes and
// deletes the reviewed comment announced, and the next plan is "No changes".
func TestShippedWorkflowAppliesWhatThePullRequestReviewed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds azk and runs the workflow's jobs")
	}
	for _, tool := range []string{"git", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the workflow's steps need it", tool)
		}
	}
	ci := newWorkflowRunner(t)
	broken := func(docs string) string { return docs + "  colour: red\n" }

	// A branch's first push: github.event.before is forty zeros.
	first := ci.push(prStack("dev", prPassword, true))
	job := ci.runJob("push", first)
	if job.failed {
		t.Fatalf("first push: the apply job failed\n%s", job.log)
	}
	mustContain(t, "first push", job.log, "Notice: --base "+strings.Repeat("0", 40)+" is git's null revision")
	if got := ci.writes(); len(got) != 4 || slices.ContainsFunc(got, func(w string) bool { return !strings.HasPrefix(w, "PUT ") }) {
		t.Errorf("first push: writes %v, want a PUT of each of the 4 resources", got)
	}
	ci.quiet("first push")

	for _, pr := range []struct {
		name, manifests string
		want            planCounts
	}{
		{"add a subnet and an identity", prStack("dev", prPassword, false), planCounts{create: 2}},
		{"remove the subnet (a child) and the identity (a resource-group-level resource)", prStack("dev", prPassword, true), planCounts{del: 2}},
		{"rotate the Secret the server reads", prStack("dev", prRotated, true), planCounts{update: 1}},
		{"change a tag", prStack("prod", prRotated, true), planCounts{update: 1}},
	} {
		ci.pullRequest(pr.name, pr.manifests, pr.want)
	}

	// A pull request whose manifests do not validate: the check fails, the
	// comment says why, nothing is written.
	bad := ci.runJob("pull_request", ci.branch("break the manifests", broken(prStack("prod", prRotated, true))))
	if !bad.failed || len(ci.writes()) != 0 {
		t.Errorf("the plan of manifests that do not validate: failed %v, writes %v; want a failed check and no write\n%s", bad.failed, ci.writes(), bad.log)
	}
	mustContain(t, "the comment on manifests that do not validate", bad.comment, "### azk plan\n\nazk could not plan (exit 1):\n\n```text\nError: manifests/stack.yaml:", `unknown field "colour"`)

	// main breaks (pushed without review): its apply job writes nothing and
	// fails; the pull request that fixes it plans against the broken base.
	push := ci.push(broken(prStack("prod", prRotated, true)))
	if job := ci.runJob("push", push); !job.failed || len(ci.writes()) != 0 {
		t.Errorf("the push of manifests that do not validate: failed %v, writes %v; want a failed job and no write\n%s", job.failed, ci.writes(), job.log)
	}
	fixed := ci.pullRequest("fix the base that does not validate and tag it staging", prStack("staging", prRotated, true), planCounts{update: 1})
	mustContain(t, "the plan against a broken base", fixed.log, "Warning: ", "in the base (--base origin/main)", "colour")

	// The apply job refuses when it cannot see the base the reviewed plan
	// used: exit 1 and nothing written.
	head := ci.merge(ci.branch("tag it final", prStack("final", prRotated, true)))
	before := head.before
	head.before = strings.Repeat("ab", 20)
	if job := ci.runJob("push", head); !job.failed || len(ci.writes()) != 0 {
		t.Errorf("apply with a base nowhere: failed %v, writes %v; want a failed job and no write\n%s", job.failed, ci.writes(), job.log)
	} else {
		mustContain(t, "apply with a base nowhere", job.log, "fetch the base with git fetch origin "+head.before)
	}
	// A shallow checkout lacks the base: the action fetches it.
	head.before, ci.depth = before, 1
	if job := ci.runJob("push", head); job.failed || len(ci.writes()) != 1 {
		t.Errorf("apply from a shallow checkout: failed %v, writes %v; want the tag's one write\n%s", job.failed, ci.writes(), job.log)
	}
	ci.depth = 0
	ci.quiet("the final tag")
}

// planCounts are a plan's writes: what its summary line announces.
type planCounts struct{ create, update, del int }

// workflowRunner holds the repository the pull requests go to (a bare
// origin and a clone the test commits and merges in), the emulator behind a
// counting proxy, and the workflow and action it runs.
type workflowRunner struct {
	t                *testing.T
	origin, dev      string
	actionDir        string
	workflow         workflowFile
	action           actionFile
	azkBinary, ghDir string
	proxyURL, pin    string
	mu               sync.Mutex
	sent             []string
	number           int
	// depth, when set, replaces the checkout's fetch-depth.
	depth int
}

// event is what a job is run for: a pull request's head, or a push.
type event struct {
	sha, before string
	number      int
}

// jobRun is what a job printed and whether it failed.
type jobRun struct {
	log     string
	failed  bool
	comment string
}

type ghStep struct {
	ID    string            `json:"id"`
	If    string            `json:"if"`
	Uses  string            `json:"uses"`
	Shell string            `json:"shell"`
	Run   string            `json:"run"`
	Env   map[string]string `json:"env"`
	With  map[string]any    `json:"with"`
}

type workflowFile struct {
	Env  map[string]string `json:"env"`
	Jobs map[string]struct {
		If    string            `json:"if"`
		Env   map[string]string `json:"env"`
		Steps []ghStep          `json:"steps"`
	} `json:"jobs"`
}

type actionFile struct {
	Inputs map[string]struct {
		Default  string `json:"default"`
		Required bool   `json:"required"`
	} `json:"inputs"`
	Outputs map[string]struct {
		Value string `json:"value"`
	} `json:"outputs"`
	Runs struct {
		Using string   `json:"using"`
		Steps []ghStep `json:"steps"`
	} `json:"runs"`
}

func newWorkflowRunner(t *testing.T) *workflowRunner {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	c := &workflowRunner{t: t, actionDir: root}
	readYAML(t, filepath.Join(root, "docs/ci/github-actions.yml"), &c.workflow)
	readYAML(t, filepath.Join(root, "action.yml"), &c.action)
	if c.action.Runs.Using != "composite" {
		t.Fatalf("action.yml runs using %q, want composite", c.action.Runs.Using)
	}

	// The install step takes, through its binary input, the azk of a
	// release archive scripts/release.sh built; its download from GitHub's
	// releases is covered by TestReleaseScript.
	c.azkBinary = hostReleaseBinary(t, t.TempDir())
	// gh records the comment it is asked to post.
	c.ghDir = t.TempDir()
	gh := "#!/bin/sh\nprintf '%s\\n' \"$*\" > \"$GH_RECORD/args\"\n[ -n \"$GH_TOKEN\" ] || { echo 'gh: no GH_TOKEN' >&2; exit 4; }\n" +
		"while [ $# -gt 0 ]; do [ \"$1\" = --body-file ] && cp \"$2\" \"$GH_RECORD/body\"; shift; done\n"
	if err := os.WriteFile(filepath.Join(c.ghDir, "gh"), []byte(gh), 0o755); err != nil {
		t.Fatal(err)
	}

	// The emulator over TLS, behind a TLS proxy whose certificate azk pins
	// (AZK_ENDPOINT_CERT_SHA256): the job's environment alone points azk there.
	ctx, cancel := context.WithCancel(context.Background())
	run, err := emulator.Start(ctx, emulator.Options{}, "127.0.0.1:0", true)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = run.Close() })
	target, _ := url.Parse(run.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = run.HTTPClient().Transport
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !readOnlyCheck(r) {
			c.mu.Lock()
			c.sent = append(c.sent, r.Method+" "+strings.ToLower(r.URL.Path))
			c.mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	sum := sha256.Sum256(srv.Certificate().Raw)
	c.proxyURL, c.pin = srv.URL, hex.EncodeToString(sum[:])

	dir := t.TempDir()
	c.origin, c.dev = filepath.Join(dir, "origin.git"), filepath.Join(dir, "dev")
	c.git("", "init", "-q", "--bare", "-b", "main", c.origin)
	c.git("", "clone", "-q", c.origin, c.dev)
	return c
}

func readYAML(t *testing.T, file string, into any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func (c *workflowRunner) git(dir string, args ...string) string {
	c.t.Helper()
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	cmd := exec.Command("git", append([]string{"-c", "user.name=azk", "-c", "user.email=azk@example.com", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		c.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// commit writes the manifests in the developer's clone and commits them.
func (c *workflowRunner) commit(manifests, message string) {
	c.t.Helper()
	if err := os.MkdirAll(filepath.Join(c.dev, "manifests"), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.dev, "manifests", "stack.yaml"), []byte(manifests), 0o644); err != nil {
		c.t.Fatal(err)
	}
	c.git(c.dev, "add", ".")
	c.git(c.dev, "commit", "-q", "-m", message)
}

// head is main's commit on origin, or the null revision before the first push.
func (c *workflowRunner) head() string {
	if out, err := exec.Command("git", "-C", c.origin, "rev-parse", "-q", "--verify", "refs/heads/main").Output(); err == nil {
		return strings.TrimSpace(string(out))
	}
	return strings.Repeat("0", 40)
}

// push commits the manifests on main and pushes them, without review.
func (c *workflowRunner) push(manifests string) event {
	c.t.Helper()
	before := c.head()
	if before != strings.Repeat("0", 40) {
		c.git(c.dev, "checkout", "-q", "main")
	}
	c.commit(manifests, "push")
	c.git(c.dev, "push", "-q", "origin", "HEAD:main")
	return event{sha: c.head(), before: before}
}

// branch opens a pull request: a branch off main with the manifests.
func (c *workflowRunner) branch(name, manifests string) event {
	c.t.Helper()
	c.number++
	ref := "pr-" + strconv.Itoa(c.number)
	c.git(c.dev, "checkout", "-q", "-b", ref, "origin/main")
	c.commit(manifests, name)
	c.git(c.dev, "push", "-q", "origin", ref)
	return event{sha: c.git(c.dev, "rev-parse", "HEAD"), number: c.number}
}

// merge merges the pull request into main and pushes it.
func (c *workflowRunner) merge(pr event) event {
	c.t.Helper()
	before := c.head()
	c.git(c.dev, "checkout", "-q", "main")
	c.git(c.dev, "pull", "-q", "--ff-only", "origin", "main")
	c.git(c.dev, "merge", "-q", "--no-ff", "-m", "merge", pr.sha)
	c.git(c.dev, "push", "-q", "origin", "main")
	return event{sha: c.head(), before: before}
}

// pullRequest opens a pull request, runs the plan job, checks the comment
// announces want, merges it, runs the apply job, checks Azure received
// exactly the announced writes and deletes, and that main plans quiet.
func (c *workflowRunner) pullRequest(name, manifests string, want planCounts) jobRun {
	c.t.Helper()
	pr := c.branch(name, manifests)
	plan := c.runJob("pull_request", pr)
	if plan.failed {
		c.t.Fatalf("%s: the plan job failed\n%s", name, plan.log)
	}
	if len(c.writes()) != 0 {
		c.t.Errorf("%s: the plan job wrote %v", name, c.writes())
	}
	counts, announced := announcedInComment(c.t, plan.comment)
	if counts != want {
		c.t.Errorf("%s: the comment announces %+v, want %+v\n%s", name, counts, want, plan.comment)
	}
	for _, secret := range []string{prPassword, prRotated} {
		if strings.Contains(plan.log+plan.comment, secret) {
			c.t.Errorf("%s: a secret value was printed", name)
		}
	}
	apply := c.runJob("push", c.merge(pr))
	if apply.failed {
		c.t.Fatalf("%s: the apply job failed\n%s", name, apply.log)
	}
	if got := c.writes(); !slices.Equal(got, announced) {
		c.t.Errorf("%s: the merge sent\n  %s\nthe comment announced\n  %s\napply log:\n%s", name, strings.Join(got, "\n  "), strings.Join(announced, "\n  "), apply.log)
	}
	c.quiet(name)
	return plan
}

// quiet checks that a plan of main says "No changes" after the apply job.
func (c *workflowRunner) quiet(what string) {
	c.t.Helper()
	ws := c.checkout(c.head(), 0)
	cmd := exec.Command(c.azkBinary, "plan", "manifests", "-detailed-exitcode")
	cmd.Dir, cmd.Env = ws, append(os.Environ(), c.azureEnv()...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), views.NoChangesLine) {
		c.t.Errorf("%s: the next plan of main: %v\n%s", what, err, out)
	}
	c.writes()
}

// writes returns (and forgets) the writes the proxy saw, sorted.
func (c *workflowRunner) writes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	got := c.sent
	c.sent = nil
	slices.Sort(got)
	return got
}

// azureEnv points azk at the emulator through the proxy.
func (c *workflowRunner) azureEnv() []string {
	return []string{"AZK_ENDPOINT=" + c.proxyURL, "AZK_ENDPOINT_CERT_SHA256=" + c.pin}
}

// checkout is actions/checkout: a clone of origin at sha, of the whole
// history with depth 0, else of depth commits.
func (c *workflowRunner) checkout(sha string, depth int) string {
	c.t.Helper()
	ws := filepath.Join(c.t.TempDir(), "workspace")
	c.git("", "init", "-q", ws)
	c.git(ws, "remote", "add", "origin", "file://"+c.origin)
	fetch := []string{"fetch", "-q", "--no-tags", "origin", "+refs/heads/*:refs/remotes/origin/*", sha}
	if depth > 0 {
		fetch = []string{"fetch", "-q", "--no-tags", "--depth=" + strconv.Itoa(depth), "origin", sha}
	}
	c.git(ws, fetch...)
	c.git(ws, "checkout", "-q", "--detach", sha)
	return ws
}

// runJob runs each job of the workflow whose if: holds for the event (one,
// else the test fails): its checkout, then the azk action's steps.
func (c *workflowRunner) runJob(eventName string, ev event) jobRun {
	c.t.Helper()
	c.writes()
	github := map[string]string{
		"github.event_name": eventName,
		"github.token":      "test-token",
		"github.ref":        "refs/heads/main",
	}
	switch eventName {
	case "pull_request":
		github["github.base_ref"] = "main"
		github["github.event.pull_request.number"] = strconv.Itoa(ev.number)
		github["github.ref"] = "refs/pull/" + strconv.Itoa(ev.number) + "/merge"
		github["github.event.before"] = ""
	case "push":
		github["github.event.before"] = ev.before
		github["github.base_ref"] = ""
		github["github.event.pull_request.number"] = ""
	}
	vars := map[string]string{"vars.AZURE_SUBSCRIPTION_ID": emulatorSubscription, "vars.AZURE_CLIENT_ID": "client", "vars.AZURE_TENANT_ID": "tenant"}
	var runs []jobRun
	for name, job := range c.workflow.Jobs {
		top := expressionScope{values: merged(github, vars)}
		if !top.condition(c.t, job.If) {
			continue
		}
		env := map[string]string{}
		for _, m := range []map[string]string{c.workflow.Env, job.Env} {
			for k, v := range m {
				env[k] = top.interpolate(c.t, v)
			}
		}
		var ws string
		var ran bool
		for _, step := range job.Steps {
			switch {
			case strings.HasPrefix(step.Uses, "actions/checkout@"):
				depth := 1
				if d, ok := step.With["fetch-depth"]; ok {
					depth, _ = strconv.Atoi(fmt.Sprint(d))
				}
				if c.depth > 0 {
					depth = c.depth
				}
				ws = c.checkout(ev.sha, depth)
			case strings.HasPrefix(step.Uses, "azure/login@"):
				// The emulator takes any token: azk reaches it through azureEnv.
			case strings.HasPrefix(step.Uses, "azkcli/azk@"):
				if ws == "" {
					c.t.Fatalf("job %s: the azk step comes before a checkout", name)
				}
				with := map[string]string{}
				for k, v := range step.With {
					with[k] = top.interpolate(c.t, fmt.Sprint(v))
				}
				with["binary"] = c.azkBinary
				runs = append(runs, c.runAction(ws, env, github, with))
				ran = true
			default:
				c.t.Fatalf("job %s: the test does not know how to run step %+v", name, step)
			}
		}
		if !ran {
			c.t.Fatalf("job %s has no azkcli/azk step", name)
		}
	}
	if len(runs) != 1 {
		c.t.Fatalf("%d jobs ran for a %s event, want 1", len(runs), eventName)
	}
	return runs[0]
}

func merged(maps ...map[string]string) map[string]string {
	all := map[string]string{}
	for _, m := range maps {
		for k, v := range m {
			all[k] = v
		}
	}
	return all
}

// runAction runs the composite action's steps in the workspace as the runner
// does: inputs with their defaults, each step's if: and env:, bash -e,
// GITHUB_OUTPUT, GITHUB_PATH and GITHUB_ENV read back after each step.
func (c *workflowRunner) runAction(ws string, jobEnv, github, with map[string]string) jobRun {
	t := c.t
	t.Helper()
	scope := expressionScope{values: merged(github)}
	for name, in := range c.action.Inputs {
		v, given := with[name]
		if !given {
			if in.Required {
				t.Fatalf("the workflow does not give the action's required input %s", name)
			}
			v = scope.interpolate(t, in.Default)
		}
		scope.values["inputs."+name] = v
	}
	for name := range with {
		if _, ok := c.action.Inputs[name]; !ok {
			t.Fatalf("the workflow gives the action an input it does not declare: %s", name)
		}
	}
	runner := t.TempDir()
	record := t.TempDir()
	files := map[string]string{}
	for _, f := range []string{"GITHUB_PATH", "GITHUB_ENV", "GITHUB_STEP_SUMMARY"} {
		files[f] = filepath.Join(runner, f)
		if err := os.WriteFile(files[f], nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := []string{
		"PATH=" + c.ghDir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + os.Getenv("HOME"),
		"RUNNER_TEMP=" + runner, "RUNNER_OS=Linux", "RUNNER_ARCH=X64",
		"GITHUB_ACTIONS=true", "GITHUB_WORKSPACE=" + ws, "GITHUB_ACTION_PATH=" + c.actionDir,
		"GITHUB_EVENT_NAME=" + github["github.event_name"], "GH_RECORD=" + record,
		"GITHUB_PATH=" + files["GITHUB_PATH"], "GITHUB_ENV=" + files["GITHUB_ENV"], "GITHUB_STEP_SUMMARY=" + files["GITHUB_STEP_SUMMARY"],
	}
	base = append(base, c.azureEnv()...)
	for k, v := range jobEnv {
		base = append(base, k+"="+v)
	}
	var log strings.Builder
	for i, step := range c.action.Runs.Steps {
		if step.ID != "" {
			scope.steps = append(scope.steps, step.ID)
		}
		if !scope.condition(t, step.If) {
			continue
		}
		if step.Uses != "" {
			t.Fatalf("action step %d (uses %s) would run: the test runs only run: steps", i, step.Uses)
		}
		if step.Shell != "bash" {
			t.Fatalf("action step %s: shell %q, want bash", step.ID, step.Shell)
		}
		env := slices.Clone(base)
		env = append(env, readPairs(t, files["GITHUB_ENV"], "")...)
		if dirs := readLines(t, files["GITHUB_PATH"]); len(dirs) > 0 {
			slices.Reverse(dirs)
			env = append(env, "PATH="+strings.Join(dirs, string(os.PathListSeparator))+string(os.PathListSeparator)+c.ghDir+string(os.PathListSeparator)+os.Getenv("PATH"))
		}
		for k, v := range step.Env {
			env = append(env, k+"="+scope.interpolate(t, v))
		}
		output := filepath.Join(runner, fmt.Sprintf("output-%d", i))
		script := filepath.Join(runner, fmt.Sprintf("step-%d.sh", i))
		if err := os.WriteFile(output, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(script, []byte(step.Run), 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(step.Run, "${{") {
			t.Errorf("action step %s: run: holds an expression; values reach scripts through env:", step.ID)
		}
		cmd := exec.CommandContext(testkit.Context(t), "bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Dir, cmd.Env = ws, append(env, "GITHUB_OUTPUT="+output)
		out, err := cmd.CombinedOutput()
		fmt.Fprintf(&log, "--- step %s\n%s", step.ID, out)
		for _, pair := range readPairs(t, output, "steps."+step.ID+".outputs.") {
			k, v, _ := strings.Cut(pair, "=")
			scope.values[k] = v
		}
		if err != nil {
			fmt.Fprintf(&log, "--- step %s: %v\n", step.ID, err)
			scope.failed = true
		}
	}
	for name, out := range c.action.Outputs {
		scope.values["outputs."+name] = scope.interpolate(t, out.Value)
	}
	job := jobRun{log: log.String(), failed: scope.failed}
	if body, err := os.ReadFile(filepath.Join(record, "body")); err == nil {
		job.comment = string(body)
		args, _ := os.ReadFile(filepath.Join(record, "args"))
		mustContain(t, "gh", string(args), "pr comment "+github["github.event.pull_request.number"]+" --body-file ", " --edit-last --create-if-none")
	} else if github["github.event_name"] == "pull_request" {
		t.Fatalf("the plan job posted no comment\n%s", job.log)
	}
	// The outputs agree with the exit code, and the check fails on 1 only.
	code := scope.values["outputs.exit-code"]
	wantChanges := map[string]string{"pull_request/0": "false", "pull_request/2": "true", "push/0": "true"}[github["github.event_name"]+"/"+code]
	if wantChanges != "" && scope.values["outputs.has-changes"] != wantChanges {
		t.Errorf("outputs: exit-code %s, has-changes %q; want %s", code, scope.values["outputs.has-changes"], wantChanges)
	}
	return job
}

// readPairs reads name=value and name<<DELIMITER lines (GITHUB_OUTPUT's and
// GITHUB_ENV's forms), each name prefixed.
func readPairs(t *testing.T, file, prefix string) []string {
	t.Helper()
	lines := readLines(t, file)
	var pairs []string
	for i := 0; i < len(lines); i++ {
		if name, delim, ok := strings.Cut(lines[i], "<<"); ok && !strings.Contains(name, "=") {
			var value []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				value = append(value, lines[i])
			}
			pairs = append(pairs, prefix+name+"="+strings.Join(value, "\n"))
			continue
		}
		if _, _, ok := strings.Cut(lines[i], "="); !ok {
			t.Fatalf("%s: line %q is neither name=value nor name<<DELIMITER", file, lines[i])
		}
		pairs = append(pairs, prefix+lines[i])
	}
	return pairs
}

func readLines(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.TrimRight(string(data), "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

var (
	summaryCount  = regexp.MustCompile(`(\d+) to (create|update|delete)`)
	announcedLine = regexp.MustCompile(`<details><summary><code>[^<]*</code> \S+ <code>[^<]*</code> (will be (?:created|updated|deleted)[^<]*|[^<]*)</summary>\n\n- id: +(\S+)`)
)

// announcedInComment reads a plan comment: the counts of its summary line,
// and the writes its resources announce (a PUT per create and update, a
// DELETE per delete), sorted as writes() sorts.
func announcedInComment(t *testing.T, comment string) (planCounts, []string) {
	t.Helper()
	summary, _, _ := strings.Cut(comment, "\n\n|")
	var counts planCounts
	for _, m := range summaryCount.FindAllStringSubmatch(summary, -1) {
		n, _ := strconv.Atoi(m[1])
		switch m[2] {
		case "create":
			counts.create = n
		case "update":
			counts.update = n
		case "delete":
			counts.del = n
		}
	}
	var writes []string
	var listed planCounts
	for _, m := range announcedLine.FindAllStringSubmatch(comment, -1) {
		id := strings.ToLower(m[2])
		switch {
		case strings.HasPrefix(m[1], "will be created"):
			listed.create++
			writes = append(writes, "PUT "+id)
		case strings.HasPrefix(m[1], "will be updated"):
			listed.update++
			writes = append(writes, "PUT "+id)
		case strings.HasPrefix(m[1], "will be deleted"):
			listed.del++
			writes = append(writes, "DELETE "+id)
		default:
			t.Fatalf("the comment announces %q: the test does not know which writes it makes\n%s", m[1], comment)
		}
	}
	if listed != counts {
		t.Errorf("the comment lists %+v, its summary says %+v\n%s", listed, counts, comment)
	}
	slices.Sort(writes)
	return counts, writes
}

// expressionScope evaluates the part of GitHub's expression language the
// workflow and the action use; anything else fails the test.
type expressionScope struct {
	values map[string]string
	steps  []string // the action's step ids so far
	failed bool
}

var expressionInText = regexp.MustCompile(`\$\{\{(.*?)\}\}`)

// interpolate replaces each ${{ expression }} in s with its value.
func (s *expressionScope) interpolate(t *testing.T, text string) string {
	t.Helper()
	return expressionInText.ReplaceAllStringFunc(text, func(m string) string {
		return s.eval(t, expressionInText.FindStringSubmatch(m)[1]).String()
	})
}

// condition evaluates an if:, which holds success() && it unless it calls a
// status function itself; an empty if: is success().
func (s *expressionScope) condition(t *testing.T, cond string) bool {
	t.Helper()
	cond = strings.TrimSpace(cond)
	if m := expressionInText.FindStringSubmatch(cond); m != nil && m[0] == cond {
		cond = m[1]
	}
	if cond == "" {
		return !s.failed
	}
	v := s.eval(t, cond).truthy()
	if !regexp.MustCompile(`\b(always|success|failure|cancelled)\(`).MatchString(cond) {
		v = v && !s.failed
	}
	return v
}

// exprValue is a string or a boolean.
type exprValue struct {
	isBool bool
	b      bool
	s      string
}

func (v exprValue) truthy() bool {
	if v.isBool {
		return v.b
	}
	return v.s != ""
}

func (v exprValue) String() string {
	if v.isBool {
		return strconv.FormatBool(v.b)
	}
	return v.s
}

var exprToken = regexp.MustCompile(`^\s*('(?:[^']|'')*'|==|!=|&&|\|\||!|\(|\)|[A-Za-z_][A-Za-z0-9_.-]*)`)

func (s *expressionScope) eval(t *testing.T, expr string) exprValue {
	t.Helper()
	var tokens []string
	for rest := expr; strings.TrimSpace(rest) != ""; {
		m := exprToken.FindStringSubmatch(rest)
		if m == nil {
			t.Fatalf("expression %q: the test does not understand %q", expr, rest)
		}
		tokens = append(tokens, m[1])
		rest = rest[len(m[0]):]
	}
	p := &exprParser{t: t, scope: s, expr: expr, tokens: tokens}
	v := p.or()
	if p.pos != len(tokens) {
		t.Fatalf("expression %q: unexpected %q", expr, tokens[p.pos])
	}
	return v
}

type exprParser struct {
	t      *testing.T
	scope  *expressionScope
	expr   string
	tokens []string
	pos    int
}

func (p *exprParser) peek() string {
	if p.pos < len(p.tokens) {
		return p.tokens[p.pos]
	}
	return ""
}

func (p *exprParser) next() string {
	tok := p.peek()
	if tok == "" {
		p.t.Fatalf("expression %q ends early", p.expr)
	}
	p.pos++
	return tok
}

func (p *exprParser) or() exprValue {
	v := p.and()
	for p.peek() == "||" {
		p.next()
		w := p.and()
		if !v.truthy() {
			v = w
		}
	}
	return v
}

func (p *exprParser) and() exprValue {
	v := p.comparison()
	for p.peek() == "&&" {
		p.next()
		w := p.comparison()
		if v.truthy() {
			v = w
		}
	}
	return v
}

func (p *exprParser) comparison() exprValue {
	v := p.unary()
	if op := p.peek(); op == "==" || op == "!=" {
		p.next()
		w := p.unary()
		if v.isBool != w.isBool {
			p.t.Fatalf("expression %q compares a boolean with a string: the test does not coerce", p.expr)
		}
		// GitHub compares strings ignoring case.
		equal := v.b == w.b && strings.EqualFold(v.s, w.s)
		return exprValue{isBool: true, b: equal == (op == "==")}
	}
	return v
}

func (p *exprParser) unary() exprValue {
	if p.peek() == "!" {
		p.next()
		return exprValue{isBool: true, b: !p.unary().truthy()}
	}
	return p.primary()
}

func (p *exprParser) primary() exprValue {
	tok := p.next()
	switch {
	case tok == "(":
		v := p.or()
		if p.next() != ")" {
			p.t.Fatalf("expression %q: a ( is not closed", p.expr)
		}
		return v
	case strings.HasPrefix(tok, "'"):
		return exprValue{s: strings.ReplaceAll(tok[1:len(tok)-1], "''", "'")}
	case tok == "true" || tok == "false":
		return exprValue{isBool: true, b: tok == "true"}
	case p.peek() == "(":
		p.next()
		if p.next() != ")" {
			p.t.Fatalf("expression %q: the test knows only status functions without arguments", p.expr)
		}
		switch tok {
		case "always":
			return exprValue{isBool: true, b: true}
		case "success":
			return exprValue{isBool: true, b: !p.scope.failed}
		case "failure":
			return exprValue{isBool: true, b: p.scope.failed}
		}
		p.t.Fatalf("expression %q: the test does not know the function %s", p.expr, tok)
	}
	return exprValue{s: p.scope.lookup(p.t, p.expr, tok)}
}

// lookup is a context value: one the test set, or an output of an earlier
// step of the action (empty when the step did not set it).
func (s *expressionScope) lookup(t *testing.T, expr, name string) string {
	t.Helper()
	if v, ok := s.values[name]; ok {
		return v
	}
	if parts := strings.Split(name, "."); len(parts) == 4 && parts[0] == "steps" && parts[2] == "outputs" && slices.Contains(s.steps, parts[1]) {
		return ""
	}
	t.Fatalf("expression %q: the test has no value for %s", expr, name)
	return ""
}
