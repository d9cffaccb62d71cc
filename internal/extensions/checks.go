package extensions

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// WriteBlocker is the operator's PreReconciliationChecker: a kind whose
// resources, in some states, must not be written, which the operator waits
// out before it sends a PUT.
type WriteBlocker interface {
	// BlocksWrite says why the resource, as Azure holds it (its ARM
	// body), cannot be written now; "" when it can.
	BlocksWrite(current map[string]any) string
}

// OwnerWriteBlocker is the operator's PreReconciliationOwnerChecker: a kind
// whose resources must not be written while their owner is in some states.
type OwnerWriteBlocker interface {
	// OwnerBlocksWrite says why the owner, as Azure holds it, keeps the
	// resource from being written now; "" when it does not.
	OwnerBlocksWrite(owner map[string]any) string
}

// PostWriteChecker is the operator's PostReconciliationChecker: a kind
// whose resource, once written, is done only when Azure says more.
type PostWriteChecker interface {
	// CheckAfterWrite judges the resource as Azure holds it after the write.
	CheckAfterWrite(current map[string]any) Verdict
}

// Verdict is a PostWriteChecker's judgement.
type Verdict struct {
	// Wait says what Azure is still doing; the resource is read again later.
	Wait string
	// Fail says why the resource failed.
	Fail string
}

// ErrorClassifier is the operator's ErrorClassifier: which ARM errors a
// kind's provider gives that are worth trying again (the operator retries
// them; azk, within its retry bounds), where the operator would otherwise stop.
type ErrorClassifier interface {
	Retryable(code, message string) bool
}

// PreWrite is a request the operator sends before a resource's PUT (a
// soft-deleted key vault purged before it is created anew); plans list it
// and apply sends it, and waits for it to end, before the PUT.
type PreWrite struct {
	Method string
	// Path is the ARM path of the request, an action's included.
	Path       string
	APIVersion string
}

// WriteBlockerFor returns the write blocker of an ARM type, or nil.
func WriteBlockerFor(armType string) WriteBlocker {
	c, _ := extensionOf[WriteBlocker](armType)
	return c
}

// OwnerWriteBlockerFor returns the owner check of an ARM type, or nil.
func OwnerWriteBlockerFor(armType string) OwnerWriteBlocker {
	c, _ := extensionOf[OwnerWriteBlocker](armType)
	return c
}

// PostWriteCheckerFor returns the post-write check of an ARM type, or nil.
func PostWriteCheckerFor(armType string) PostWriteChecker {
	c, _ := extensionOf[PostWriteChecker](armType)
	return c
}

// Retryable reports whether an ARM error (code and message) that writing or
// deleting a resource of armType got is one its kind's classifier retries.
func Retryable(armType, code, message string) bool {
	c, ok := extensionOf[ErrorClassifier](armType)
	return ok && c.Retryable(code, message)
}

// stateBlocks is a WriteBlocker and OwnerWriteBlocker reading one state
// property: writes wait unless it is one of the settled states (compared in
// any case), or absent.
type stateBlocks struct {
	// path is the state's path in the ARM body.
	path []string
	// settled are the lower-cased states that do not block, or blocking
	// the lower-cased states that do (exactly one of them is set).
	settled, blocking []string
	// what names the resource in messages ("Managed cluster").
	what string
}

func (s stateBlocks) reason(body map[string]any) string {
	state := stringAt(body, s.path...)
	if state == "" {
		return ""
	}
	l := strings.ToLower(state)
	if s.settled != nil && slices.Contains(s.settled, l) || s.blocking != nil && !slices.Contains(s.blocking, l) {
		return ""
	}
	return s.what + " is in " + s.path[len(s.path)-1] + " " + state
}

// provisioningSettled are the provisioning states that end an operation.
var provisioningSettled = []string{"succeeded", "failed", "canceled"}

// codes is an ErrorClassifier retrying errors with any of the codes.
type codes []string

func (c codes) Retryable(code, _ string) bool { return slices.Contains(c, code) }

// codeMessage is an ErrorClassifier retrying errors with the code (any when
// empty) whose message matches.
type codeMessage struct {
	code    string
	message *regexp.Regexp
}

func (c codeMessage) Retryable(code, message string) bool {
	return (c.code == "" || code == c.code) && c.message.MatchString(message)
}

// anyOf retries what any of the classifiers retries.
type anyOf []ErrorClassifier

func (a anyOf) Retryable(code, message string) bool {
	return slices.ContainsFunc(a, func(c ErrorClassifier) bool { return c.Retryable(code, message) })
}

// blocksWrite is a WriteBlocker on a state of the resource itself.
type blocksWrite struct{ stateBlocks }

func (b blocksWrite) BlocksWrite(current map[string]any) string { return b.reason(current) }

// ownerBlocksWrite is an OwnerWriteBlocker on a state of the owner.
type ownerBlocksWrite struct{ stateBlocks }

func (b ownerBlocksWrite) OwnerBlocksWrite(owner map[string]any) string {
	if r := b.reason(owner); r != "" {
		return "its owner: " + r
	}
	return ""
}

// ConfigExporter is the operator's KubernetesConfigExporter: config-map
// values a kind's extension fills (the configuration's $manualConfigs)
// from what Azure holds, beyond the resource's status.
type ConfigExporter interface {
	// ExportConfig returns the values, by operatorSpec.configMaps entry
	// name, from the resource's status (JSON names, as convert.Status maps
	// an ARM body); get reads other resources at apiVersion (nil when they
	// do not exist). A value Azure does not hold yet is left out.
	ExportConfig(status map[string]any, apiVersion string, get func(id, apiVersion string) (map[string]any, error)) (map[string]string, error)
}

// ConfigExporterFor returns the config exporter of an ARM type, or nil.
func ConfigExporterFor(armType string) ConfigExporter {
	c, _ := extensionOf[ConfigExporter](armType)
	return c
}

// Deleter is the operator's Deleter: a kind whose resources are deleted
// with more than a plain DELETE.
type Deleter interface {
	// DeleteWith are the query parameters and headers the DELETE carries.
	DeleteWith() (url.Values, http.Header)
}

// DeleterFor returns the deleter of an ARM type, or nil.
func DeleterFor(armType string) Deleter {
	d, _ := extensionOf[Deleter](armType)
	return d
}
