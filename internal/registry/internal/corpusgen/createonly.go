package corpusgen

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/registry"
)

// Create-only facts: the properties Azure accepts only when a resource is
// created. The REST specifications' types carry no x-ms-mutability (Bicep's
// flags keep read-only and write-only only), so the specifications' and the
// CRDs' wording is read by createOnlyText; identity and provider facts are
// kept below with the error code the provider answers a change with. The
// operator's configuration and customizations mark nothing create-only in a
// body: the operator refuses to change only azureName and owner, both part
// of the ARM ID, so a change there names another resource.

// createOnlySentence are the wordings, in one lower-cased sentence, that
// say the property's value is given only at creation.
var createOnlySentence = []*regexp.Regexp{
	// "cannot be changed after the resource is created", "may not be changed
	// after creation", "cannot be updated once the cluster has been created".
	regexp.MustCompile(`\b(cannot|can not|can't|may not|must not) be (changed|updated|modified)\b.*\b(after|once)\b.*\bcreat(e|ed|ing|ion)\b`),
	// "can only be set at database account creation", "can only be specified
	// when the server is being created", "can only be set to true at the
	// account creation time", "can only be added at creation time".
	regexp.MustCompile(`\b(can|may) only be (set|specified|chosen|configured|added|provided|enabled)\b.*\b(at|during|on|when|while|upon)\b.*\bcreat(e|ed|ing|ion)\b`),
	// "specified at create time".
	regexp.MustCompile(`\b(specified|set) at (the )?(create|creation) time\b`),
	// "this property is not updatable".
	regexp.MustCompile(`\b(property|field|setting|value) is not updatable\b`),
	// "not allowed to changed once set".
	regexp.MustCompile(`\bnot allowed to (be )?change(d)? once set\b`),
	// "the property is immutable and can only be set …", "this is an
	// immutable property".
	regexp.MustCompile(`\b(property is immutable|is an immutable (property|field|setting))\b`),
	// "extended location cannot be changed." (nothing after it).
	regexp.MustCompile(`\b(cannot|can not|can't) be (changed|updated|modified)$`),
}

// notCreateOnlySentence are wordings that make a sentence conditional or
// about something else: "some of the settings", "if the link is created in
// auto-approval mode", "when the account was created with …", "can be
// modified after the node pool is created".
var notCreateOnlySentence = regexp.MustCompile(`\b(some of|if|unless|except|created with|can be (changed|updated|modified)|only be changed for)\b`)

// sentenceEnd splits a description into sentences.
var sentenceEnd = regexp.MustCompile(`(\.\s+|\.$|<br\s*/?>|\n)`)

// createOnlyText reports whether a property description says the value can
// be given only when the resource is created. It is conservative: one
// sentence must say so without condition, and when it names what is
// created ("after the workspace has been created"), that must be the
// resource or the object holding the property: subject is the ARM type and
// the property's path (a virtual machine's disk settings shared with scale
// sets say "when you create the scale set", which is not about a VM).
func createOnlyText(description, subject string) bool {
	sentences := createOnlySentences(description)
	if len(sentences) == 0 {
		return false
	}
	subject = lettersOnly(subject)
	for _, s := range sentences {
		if createdIs(s, subject) {
			return true
		}
	}
	return false
}

// createOnlyWords are the words one of createOnlySentence needs: a
// description with none of them is not read sentence by sentence.
var createOnlyWords = []string{"creat", "updatable", "chang", "immutable"}

// sentencesSaid memoizes createOnlySentences: the specs repeat a
// description across api-versions and the types that share it.
var sentencesSaid sync.Map // description -> []string

// createOnlySentences are the sentences of a description, lower-cased and
// normalized, that say without condition the value is given only at
// creation.
func createOnlySentences(description string) []string {
	if said, ok := sentencesSaid.Load(description); ok {
		return said.([]string)
	}
	var out []string
	lower := strings.ToLower(description)
	if slices.ContainsFunc(createOnlyWords, func(w string) bool { return strings.Contains(lower, w) }) {
		for _, s := range sentenceEnd.Split(lower, -1) {
			s = strings.Join(strings.Fields(s), " ")
			s = strings.TrimSuffix(s, ".")
			if s == "" || notCreateOnlySentence.MatchString(s) {
				continue
			}
			if slices.ContainsFunc(createOnlySentence, func(re *regexp.Regexp) bool { return re.MatchString(s) }) {
				out = append(out, s)
			}
		}
	}
	sentencesSaid.Store(description, out)
	return out
}

// creationWord finds the words about creating in a sentence.
var creationWord = regexp.MustCompile(`\b(create|creating|created|creation)\b`)

// creationFiller are the words around "created" that name nothing; a
// creationStop ends what is named ("after", "at creation time").
var creationFiller = map[string]bool{"the": true, "a": true, "an": true, "its": true, "this": true, "is": true, "has": true,
	"been": true, "being": true, "was": true, "you": true, "it": true, "resource": true, "time": true}

var creationStop = map[string]bool{"at": true, "after": true, "once": true, "when": true, "while": true, "during": true, "on": true,
	"upon": true, "of": true, "in": true, "for": true, "and": true, "or": true, "to": true, "with": true, "before": true, "by": true}

// createdIs reports whether every thing the sentence says is created is the
// subject or part of it; a sentence naming nothing ("after creation") is
// about the resource.
func createdIs(sentence, subject string) bool {
	words := strings.Fields(sentence)
	for i := range words {
		words[i] = strings.Trim(words[i], ",;:()'\"")
	}
	for i, w := range words {
		if creationWord.FindString(w) != w {
			continue
		}
		step := -1 // "the disk has been created": the name comes before
		if w == "create" || w == "creating" {
			step = 1 // "when you create the scale set": after
		}
		var named []string
		for j := i + step; j >= 0 && j < len(words) && !creationStop[words[j]]; j += step {
			if creationFiller[words[j]] {
				if len(named) > 0 {
					break
				}
				continue
			}
			named = append(named, words[j])
		}
		if step < 0 {
			slices.Reverse(named)
		}
		noun := strings.ReplaceAll(lettersOnly(strings.Join(named, "")), "vm", "virtualmachine")
		if noun != "" && !strings.Contains(subject, noun) {
			return false
		}
	}
	return true
}

// lettersOnly lower-cases s and keeps its letters.
func lettersOnly(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// crdCreateOnly lists the ARM body paths of the spec fields whose CRD
// description says they are create-only. s is the CRD schema of f, which
// stands at the ARM path at in a body of armType.
func crdCreateOnly(armType string, s *schema, f *registry.Field, at string) []string {
	if s == nil || f == nil {
		return nil
	}
	var out []string
	switch f.Type {
	case registry.TypeObject:
		for name, ps := range s.Properties {
			c := f.Child(name)
			if c == nil || c.ARM == nil {
				continue // never reaches ARM (owner, operatorSpec)
			}
			child := at
			if len(c.ARM) > 0 {
				child = armjson.Join(at, strings.Join(c.ARM, "."))
			}
			if child != at && createOnlyText(ps.Description, armType+" "+child) {
				out = append(out, child)
			}
			if c.Ref == "" && !c.KeyedByRef {
				out = append(out, crdCreateOnly(armType, ps, c, child)...)
			}
		}
	case registry.TypeArray:
		return crdCreateOnly(armType, s.Items, f.Items, at+"[]")
	case registry.TypeMap:
		return crdCreateOnly(armType, s.AdditionalProperties, f.Values, at+"{}")
	}
	return out
}

// knownCreateOnly is a create-only property of an ARM type that neither the
// specification nor the CRD words as such, with the code the provider
// answers a PUT that changes it with.
type knownCreateOnly struct {
	path, source, code string
}

// knownCreateOnlyFacts are those properties by lower-cased ARM type.
var knownCreateOnlyFacts = map[string][]knownCreateOnly{
	// "Tenant ID, application ID, principal ID, and scope are not allowed
	// to be updated"; the scope is the owner, part of the ARM ID.
	"microsoft.authorization/roleassignments": {
		{path: "properties.principalId", source: registry.CreateOnlyFromIdentity, code: "RoleAssignmentUpdateNotPermitted"},
		{path: "properties.roleDefinitionId", source: registry.CreateOnlyFromIdentity, code: "RoleAssignmentUpdateNotPermitted"},
	},
	// Cosmos DB answers 400 BadRequest: a container's partition key cannot be changed.
	"microsoft.documentdb/databaseaccounts/sqldatabases/containers": {
		{path: "properties.resource.partitionKey", source: registry.CreateOnlyFromProvider, code: "BadRequest"},
	},
	"microsoft.documentdb/databaseaccounts/gremlindatabases/graphs": {
		{path: "properties.resource.partitionKey", source: registry.CreateOnlyFromProvider, code: "BadRequest"},
	},
}

// Codes ARM answers a PUT that moves a resource to another region with.
const (
	locationCode      = "InvalidResourceLocation"
	groupLocationCode = "InvalidResourceGroupLocation"
)

// addCreateOnly records that path of k is create-only according to source.
func addCreateOnly(k *registry.Kind, path, source, code string) {
	for i := range k.CreateOnly {
		if c := &k.CreateOnly[i]; c.Path == path {
			if !slices.Contains(c.Sources, source) {
				c.Sources = append(c.Sources, source)
			}
			if c.Code == "" {
				c.Code = code
			}
			return
		}
	}
	k.CreateOnly = append(k.CreateOnly, registry.CreateOnly{Path: path, Sources: []string{source}, Code: code})
}

// createOnlySourceOrder orders CreateOnly.Sources.
var createOnlySourceOrder = []string{registry.CreateOnlyFromRESTSpec, registry.CreateOnlyFromCRD,
	registry.CreateOnlyFromIdentity, registry.CreateOnlyFromProvider, registry.CreateOnlyFromLocation}

// markCreateOnly completes the kinds' create-only facts (the CRDs' and the
// specifications' are already there) with location and the known facts,
// keeps only paths a spec field reaches, and sorts them.
func markCreateOnly(kinds []*registry.Kind) {
	for _, k := range kinds {
		if !k.IsARM() {
			k.CreateOnly = nil
			continue
		}
		if specReaches(k.Spec, "location") {
			code := locationCode
			if strings.EqualFold(k.ARMType, "Microsoft.Resources/resourceGroups") {
				code = groupLocationCode
			}
			addCreateOnly(k, "location", registry.CreateOnlyFromLocation, code)
		}
		for _, f := range knownCreateOnlyFacts[strings.ToLower(k.ARMType)] {
			addCreateOnly(k, f.path, f.source, f.code)
		}
		k.CreateOnly = slices.DeleteFunc(k.CreateOnly, func(c registry.CreateOnly) bool { return !specReaches(k.Spec, c.Path) })
		for i := range k.CreateOnly {
			sort.Slice(k.CreateOnly[i].Sources, func(a, b int) bool {
				return slices.Index(createOnlySourceOrder, k.CreateOnly[i].Sources[a]) < slices.Index(createOnlySourceOrder, k.CreateOnly[i].Sources[b])
			})
		}
		sort.Slice(k.CreateOnly, func(i, j int) bool { return k.CreateOnly[i].Path < k.CreateOnly[j].Path })
		if len(k.CreateOnly) == 0 {
			k.CreateOnly = nil
		}
	}
}
