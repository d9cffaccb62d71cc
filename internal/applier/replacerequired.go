package applier

import (
	"errors"
	"fmt"
	"regexp"
	"slices"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/planner"
)

// ReplaceRequired says that ARM refused an update for changing a property
// it accepts only at creation: the resource must be replaced.
type ReplaceRequired struct {
	// Property is the refused property's body path, when ARM or the plan
	// names it.
	Property string `json:"property,omitempty"`
	// Source is where the fact comes from: "ARM refused: <code>".
	Source string `json:"source"`
	// Replace is the option that replaces the resource: -replace=ADDRESS.
	Replace string `json:"replace"`
}

// replaceRequiredError is a PUT's refusal, classified (see replaceRequiredBy).
type replaceRequiredError struct {
	err  error
	what ReplaceRequired
}

func (e *replaceRequiredError) Error() string { return e.err.Error() }
func (e *replaceRequiredError) Unwrap() error { return e.err }

// refusalCodes are the codes providers answer a change of a create-only
// property with, whatever the message.
var refusalCodes = []string{"PropertyChangeNotAllowed", "RoleAssignmentUpdateNotPermitted",
	"InvalidResourceLocation", "InvalidResourceGroupLocation"}

// refusalMessage is the wording of providers that answer a generic code
// (BadRequest, InvalidRequestContent, InvalidParameter): Cosmos DB's
// "partition key cannot be changed", "… is immutable", "… not allowed to be updated".
var refusalMessage = regexp.MustCompile(`(?i)\b(cannot|can ?not|can't|may not) be (changed|updated|modified)\b|\bnot allowed to be (changed|updated|modified)\b|\bis immutable\b|\bchanging property\b.*\bis not allowed\b`)

// quotedProperty is the property a refusal's message names: "Changing property 'a.b' is not allowed."
var quotedProperty = regexp.MustCompile(`(?i)property '([^']+)'`)

// replaceRequiredBy classifies the error of r's PUT: an update ARM refused
// for changing a property it accepts only at creation is replace-required,
// and err comes back wrapped to say so (ARM's answer stays inside).
func replaceRequiredBy(r *planner.Resource, err error) error {
	var re *arm.ResponseError
	if r.Action != planner.ActionUpdate || !errors.As(err, &re) {
		return err
	}
	code, msg, target := re.Code, re.Message, ""
	for _, d := range re.Details {
		if slices.Contains(refusalCodes, d.Code) || refusalMessage.MatchString(d.Message) {
			code, msg, target = d.Code, d.Message, d.Target
			break
		}
	}
	if !slices.Contains(refusalCodes, code) && !refusalMessage.MatchString(msg) {
		return err
	}
	property := target
	if m := quotedProperty.FindStringSubmatch(msg); property == "" && m != nil {
		property = m[1]
	}
	if property == "" {
		property = plannedCreateOnly(r, code)
	}
	return &replaceRequiredError{err: err, what: ReplaceRequired{Property: property, Source: "ARM refused: " + code, Replace: "-replace=" + r.Address}}
}

// plannedCreateOnly is the path of the change the plan shows at a property
// the kind knows is refused with code, when ARM does not name it.
func plannedCreateOnly(r *planner.Resource, code string) string {
	if r.Node == nil || r.Node.Kind == nil {
		return ""
	}
	for _, c := range r.Changes {
		if f := planner.CreateOnlyFactAt(r.Node.Kind, c.Path); f != nil && f.Code == code {
			return f.Path
		}
	}
	return ""
}

// describeReplace says what a replace-required refusal means, for the end report.
func describeReplace(rr *ReplaceRequired) string {
	property := "a property ARM did not name"
	if rr.Property != "" {
		property = rr.Property
	}
	return fmt.Sprintf("replace-required: Azure accepts %s only at creation (%s): %s deletes it and creates it again (with what ARM deletes with it)", property, rr.Source, rr.Replace)
}
