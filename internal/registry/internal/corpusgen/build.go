// Package corpusgen derives the registry data from the ASO corpus: the CRDs give
// JSON names, validation and ARM URIs; the structure.txt outlines give owners,
// api-versions, Go types (references) and the ARM body shape.
package corpusgen

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/azkcli/azk/internal/registry"
)

// Result is everything derived from one corpus.
type Result struct {
	// Kinds are sorted by group, version, kind.
	Kinds []*registry.Kind
	// Unpaired lists spec fields that should reach ARM but have no ARM
	// counterpart, as "group/version/Kind spec.path".
	Unpaired []string
	// UnpairedStatus lists status fields with no ARM counterpart in the GET body.
	UnpairedStatus []string
	// RefLeafMismatches lists reference fields whose ARM counterpart is not a
	// string (or, for secret maps, a map of strings).
	RefLeafMismatches []string
	// OperatorUnplaced lists facts of the operator's configuration that name
	// no field of the kind they belong to.
	OperatorUnplaced []string
	// ARMTypes are the per-ARM-type facts (armtypetable.go), sorted by type.
	ARMTypes []registry.ARMType
	// Corpus describes the corpus itself: the ASO release its CRDs come from.
	Corpus registry.Corpus
}

// Build reads the corpus rooted at dir (containing crds/ and api/) and the
// REST specifications' types in armTypes (see ARMTypesDir).
func Build(dir, armTypes string) (*Result, error) {
	files, err := filepath.Glob(filepath.Join(dir, "crds", "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no CRDs found under crds/", dir)
	}
	config, err := readOperatorConfig(dir)
	if err != nil {
		return nil, err
	}
	b := &builder{corpus: dir, armTypes: armTypes, outlines: map[string]*outlineEntry{}, config: config}
	results := make([]*Result, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i], errs[i] = b.crdFile(files[i])
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()

	var all Result
	for i, r := range results {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if err := agreeOnVersion(&all.Corpus, r.Corpus, files[i]); err != nil {
			return nil, err
		}
		all.Kinds = append(all.Kinds, r.Kinds...)
		all.Unpaired = append(all.Unpaired, r.Unpaired...)
		all.UnpairedStatus = append(all.UnpairedStatus, r.UnpairedStatus...)
		all.RefLeafMismatches = append(all.RefLeafMismatches, r.RefLeafMismatches...)
		all.OperatorUnplaced = append(all.OperatorUnplaced, r.OperatorUnplaced...)
	}
	sort.Slice(all.Kinds, func(i, j int) bool { return lessGVK(all.Kinds[i].GVK, all.Kinds[j].GVK) })
	sort.Strings(all.Unpaired)
	sort.Strings(all.UnpairedStatus)
	sort.Strings(all.RefLeafMismatches)
	sort.Strings(all.OperatorUnplaced)
	if err := markNoDelete(dir, all.Kinds); err != nil {
		return nil, err
	}
	if err := markBodyFacts(armTypes, all.Kinds); err != nil {
		return nil, err
	}
	markCreateOnly(all.Kinds)
	recs, err := readRecordings(dir)
	if err != nil {
		return nil, err
	}
	if all.ARMTypes, err = buildARMTypes(dir, armTypes, recs, all.Kinds); err != nil {
		return nil, err
	}
	return &all, nil
}

// agreeOnVersion takes the ASO release of one CRD file into all: every CRD
// must name the same one, or the registry would mix releases.
func agreeOnVersion(all *registry.Corpus, one registry.Corpus, file string) error {
	switch {
	case one.ASOVersion == "":
		return fmt.Errorf("%s: no %s label naming the ASO release", file, asoVersionLabel)
	case all.ASOVersion == "":
		all.ASOVersion = one.ASOVersion
	case all.ASOVersion != one.ASOVersion:
		return fmt.Errorf("%s: ASO release %s, other CRDs %s: the corpus mixes releases", file, one.ASOVersion, all.ASOVersion)
	}
	return nil
}

func lessGVK(a, b registry.GVK) bool {
	if a.Group != b.Group {
		return a.Group < b.Group
	}
	if a.Version != b.Version {
		return a.Version < b.Version
	}
	return a.Kind < b.Kind
}

type builder struct {
	corpus   string
	armTypes string
	mu       sync.Mutex
	outlines map[string]*outlineEntry
	config   operatorConfig
}

type outlineEntry struct {
	once sync.Once
	o    *outline
	err  error
}

// outline returns the parsed file at path, or nil if it does not exist.
func (b *builder) outline(path string) (*outline, error) {
	b.mu.Lock()
	e := b.outlines[path]
	if e == nil {
		e = &outlineEntry{}
		b.outlines[path] = e
	}
	b.mu.Unlock()
	e.once.Do(func() {
		if _, err := os.Stat(path); os.IsNotExist(err) {
			return
		}
		e.o, e.err = parseOutline(path)
	})
	return e.o, e.err
}

func (b *builder) crdFile(path string) (*Result, error) {
	c, err := readCRD(path)
	if err != nil {
		return nil, err
	}
	res := Result{Corpus: registry.Corpus{ASOVersion: c.Metadata.Labels[asoVersionLabel]}}
	for _, v := range c.Spec.Versions {
		if !v.Served || strings.HasSuffix(v.Name, "storage") {
			continue
		}
		if v.Schema.OpenAPIV3Schema == nil {
			return nil, fmt.Errorf("%s: version %s has no openAPIV3Schema", path, v.Name)
		}
		k, err := b.kind(&res, path, c.Spec.Group, c.Spec.Names.Kind, v)
		if err != nil {
			return nil, err
		}
		group := b.config[strings.TrimSuffix(c.Spec.Group, ".azure.com")]
		res.OperatorUnplaced = append(res.OperatorUnplaced, b.operatorFacts(k, v.Schema.OpenAPIV3Schema, storageSchema(c, v.Name), group)...)
		res.Kinds = append(res.Kinds, k)
	}
	return &res, nil
}

func (b *builder) kind(res *Result, crdPath, group, kind string, v crdVersion) (*registry.Kind, error) {
	root := v.Schema.OpenAPIV3Schema
	k := &registry.Kind{GVK: registry.GVK{Group: group, Version: v.Name, Kind: kind}}
	where := fmt.Sprintf("%s: %s/%s", crdPath, k.GVK.APIVersion(), kind)
	if uri := armURI(root.Description); uri != "" {
		r, err := parseARMURI(uri)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		k.URI, k.ARMType, k.Scope, k.FixedName = uri, r.Type, r.Scope, r.FixedName
	}

	pkgDir := filepath.Join(b.corpus, "api", strings.TrimSuffix(group, ".azure.com"), v.Name)
	kube, err := b.outline(filepath.Join(pkgDir, "structure.txt"))
	if err != nil {
		return nil, err
	}
	var resource *goNode
	if kube != nil {
		resource = kube.Decls[kind]
		if av := kube.Decls["APIVersion"]; av != nil && len(av.Enum) == 1 {
			k.APIVersion = av.Enum[0]
		}
	}
	if k.IsARM() && (resource == nil || k.APIVersion == "") {
		return nil, fmt.Errorf("%s: ARM kind without a Resource and APIVersion in %s", where, filepath.Join(pkgDir, "structure.txt"))
	}
	if owner := resource.field("Owner"); owner != nil {
		k.Owners = []registry.GroupKind{ownerKind(group, owner.Type.Named)}
	}

	armSpec, armStatus, err := b.armTrees(pkgDir, kube, kind)
	if err != nil {
		return nil, err
	}
	gvk := k.Group + "/" + k.Version + "/" + k.Kind
	names := jsonNames(root)
	if s := root.Properties["spec"]; s != nil {
		p := &pairer{gvk: gvk, kind: normalize(kind), names: names, unpaired: &res.Unpaired, refMismatches: &res.RefLeafMismatches}
		k.Spec = p.root(s, resource.field("Spec"), armSpec, "spec", k.IsARM())
		for _, path := range crdCreateOnly(k.ARMType, s, k.Spec, "") {
			addCreateOnly(k, path, registry.CreateOnlyFromCRD, "")
		}
	}
	if s := root.Properties["status"]; s != nil {
		p := &pairer{gvk: gvk, kind: normalize(kind), names: names, unpaired: &res.UnpairedStatus, refMismatches: &res.RefLeafMismatches}
		k.Status = p.root(s, resource.field("Status"), armStatus, "status", k.IsARM())
	}
	return k, nil
}

// ownerKind turns an outline owner ("FirewallPolicy", "resources/v1apiv20191001.ResourceGroup")
// into a group and kind; unqualified owners are in the owned kind's group.
func ownerKind(group, owner string) registry.GroupKind {
	if pkg, rest, ok := strings.Cut(owner, "/"); ok {
		_, kind, _ := strings.Cut(rest, ".")
		return registry.GroupKind{Group: pkg + ".azure.com", Kind: kind}
	}
	return registry.GroupKind{Group: group, Kind: owner}
}

// armTrees finds the ARM-side spec and status trees of kind: Kind_Spec and
// Kind_STATUS in arm/structure.txt, or Kind_Spec_ARM and Kind_STATUS_ARM in
// older packages' structure.txt. Some names put an underscore inside the kind
// (Redis_LinkedServer_STATUS for RedisLinkedServer).
func (b *builder) armTrees(pkgDir string, kube *outline, kind string) (spec, status *goNode, err error) {
	arm, err := b.outline(filepath.Join(pkgDir, "arm", "structure.txt"))
	if err != nil {
		return nil, nil, err
	}
	if arm == nil {
		arm = kube
	}
	if arm == nil {
		return nil, nil, nil
	}
	want := normalize(kind)
	var resourceStatus *goNode
	for name, n := range arm.Decls {
		base := strings.TrimSuffix(name, "_ARM")
		switch {
		case strings.HasSuffix(base, "_Spec") && normalize(strings.TrimSuffix(base, "_Spec")) == want:
			spec = n
		case strings.HasSuffix(base, "_STATUS") && normalize(strings.TrimSuffix(base, "_STATUS")) == want:
			status = n
		case strings.HasSuffix(base, "_STATUS") && isResourceVariant(normalize(strings.TrimSuffix(base, "_STATUS")), want):
			resourceStatus = n
		}
	}
	if status == nil {
		status = resourceStatus
	}
	return spec, status, nil
}

// isResourceVariant reports whether an ARM status type is named after the
// REST spec's resource envelope of kind (BackupVaultResource_STATUS,
// DataCollectionRuleAssociationProxyOnlyResource_STATUS, RegistryTrackedResource_STATUS).
func isResourceVariant(name, kind string) bool {
	rest, ok := strings.CutPrefix(name, kind)
	return ok && strings.HasSuffix(rest, "resource") && !strings.ContainsAny(rest[:len(rest)-len("resource")], "0123456789") &&
		(rest == "resource" || rest == "proxyonlyresource" || rest == "trackedresource")
}

// normalize keeps the lower-cased letters and digits of a name, so that JSON
// and Go spellings of one name compare equal.
func normalize(s string) string {
	var sb strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			sb.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			sb.WriteRune(r + 'a' - 'A')
		}
	}
	return sb.String()
}

// jsonNames maps normalized names to the JSON spellings used anywhere in a
// version's schema, status first: status mirrors the ARM GET body, so it holds
// the JSON names of ARM-only fields such as vnetSubnetID.
func jsonNames(root *schema) map[string]string {
	names := map[string]string{}
	var walk func(*schema)
	walk = func(s *schema) {
		if s == nil {
			return
		}
		keys := make([]string, 0, len(s.Properties))
		for k := range s.Properties {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if _, ok := names[normalize(k)]; !ok {
				names[normalize(k)] = k
			}
			walk(s.Properties[k])
		}
		walk(s.Items)
		walk(s.AdditionalProperties)
	}
	walk(root.Properties["status"])
	walk(root.Properties["spec"])
	return names
}

// pairer builds one Field tree (spec or status) of one kind, pairing the CRD
// schema with the Go outline and the ARM outline.
type pairer struct {
	gvk           string
	kind          string // normalized kind name
	names         map[string]string
	unpaired      *[]string
	refMismatches *[]string
}

func (p *pairer) root(s *schema, kube, arm *goNode, path string, isARM bool) *registry.Field {
	if kube == nil {
		// Not an ARM resource: the CRD is all there is.
		return p.field(s, nil, goType{}, nil, goType{}, path, false)
	}
	if isARM && arm == nil {
		*p.unpaired = append(*p.unpaired, p.gvk+" "+path+": no ARM tree")
	}
	if path == "spec" && arm != nil {
		// The top-level ARM name comes from azureName; a spec field called
		// name belongs under properties.
		trimmed := *arm
		trimmed.Fields = slices.DeleteFunc(slices.Clone(arm.Fields), func(n *goNode) bool { return n.Name == "Name" })
		arm = &trimmed
	}
	return p.field(s, kube, kube.Type, arm, armType(arm), path, isARM && arm != nil)
}

func armType(n *goNode) goType {
	if n == nil {
		return goType{}
	}
	return n.Type
}

// field builds the Field for schema s. kube/kt is the Go node and the type
// layer of it that s describes; arm/at likewise on the ARM side (nil when
// unpaired). wantARM says whether the properties of s are expected to pair.
func (p *pairer) field(s *schema, kube *goNode, kt goType, arm *goNode, at goType, path string, wantARM bool) *registry.Field {
	f := schemaField(s)
	if kt.Kind == goNamed {
		f.Ref = refKind(kt.Named)
	}
	if f.Ref != "" {
		wantARM, arm = false, nil // a reference is resolved to one ARM value
	}
	elem := func(t goType) goType {
		if t.Elem == nil {
			return goType{}
		}
		return *t.Elem
	}
	armElem := func() (*goNode, goType) {
		if arm == nil || (at.Kind != goArray && at.Kind != goMap) {
			return nil, goType{}
		}
		return arm, elem(at)
	}
	switch f.Type {
	case registry.TypeArray:
		a, et := armElem()
		f.Items = p.field(s.Items, kube, elem(kt), a, et, path+"[]", wantARM && a != nil)
	case registry.TypeMap:
		a, et := armElem()
		f.Values = p.field(s.AdditionalProperties, kube, elem(kt), a, et, path+"{}", wantARM && a != nil)
	case registry.TypeObject:
		f.OneOf = s.isOneOf()
		f.Fields = p.properties(s, kube, arm, path, wantARM, f.OneOf)
	}
	return f
}

// properties builds the fields of an object, pairing each JSON property with
// its Go field and that with its place in the ARM object.
func (p *pairer) properties(s *schema, kube, arm *goNode, path string, wantARM, oneOf bool) []*registry.Field {
	var goFields []*goNode
	if kube != nil {
		goFields = kube.Fields
	}
	pairs := pairNames(s, goFields)
	fields := make([]*registry.Field, 0, len(pairs))
	for _, pr := range pairs {
		cs, gf := s.Properties[pr.json], pr.kube
		cpath := path + "." + pr.json
		var (
			armPath []string
			leaf    *goNode
		)
		childWant := false
		operatorOnly := gf != nil && isOperatorOnly(path, gf)
		switch {
		case !wantARM || gf == nil || operatorOnly:
		case oneOf:
			// The chosen alternative's fields stand inline in the wrapper's ARM object.
			if chain := findARM(arm, gf); len(chain) == 1 {
				armPath, leaf, childWant = []string{}, chain[0], true
			}
		default:
			if chain, names := p.locate(arm, gf, pr.json, goFields, path == "spec" || path == "status"); chain != nil {
				if names == nil {
					names = p.armJSONPath(chain, gf, pr.json)
				}
				armPath, leaf, childWant = names, chain[len(chain)-1], true
			}
		}
		switch {
		case wantARM && gf == nil:
			*p.unpaired = append(*p.unpaired, p.gvk+" "+cpath+": no Go field in structure.txt")
		case wantARM && leaf == nil && !operatorOnly:
			*p.unpaired = append(*p.unpaired, p.gvk+" "+cpath)
		}
		var kt goType
		if gf != nil {
			kt = gf.Type
		}
		keyed := leaf != nil && isKeyedByRef(gf, leaf)
		var f *registry.Field
		if keyed {
			f = p.field(cs, gf, kt, nil, goType{}, cpath, false)
			f.KeyedByRef = true
		} else {
			f = p.field(cs, gf, kt, leaf, armType(leaf), cpath, childWant)
		}
		f.Name = pr.json
		f.ARM = armPath
		f.Required = slices.Contains(s.Required, pr.json)
		if leaf != nil && !keyed {
			p.checkRefLeaf(f, leaf, cpath)
		}
		fields = append(fields, f)
	}
	return fields
}

// isOperatorOnly reports whether a top-level field belongs to the operator
// rather than the ARM body: the owner, the Azure name, operatorSpec, and the
// status conditions.
func isOperatorOnly(path string, gf *goNode) bool {
	switch path {
	case "spec":
		switch gf.Name {
		case "AzureName", "AzureNameFromConfig", "OperatorSpec":
			return true
		}
		return refKind(gf.Type.leaf().Named) == registry.RefOwner
	case "status":
		return gf.Name == "Conditions"
	}
	return false
}

// isKeyedByRef reports whether a list of {reference} pairs with an ARM map of
// empty objects keyed by ARM ID (user-assigned identities).
func isKeyedByRef(gf, arm *goNode) bool {
	if gf.Type.Kind != goArray || gf.Type.Elem.Kind != goObject || len(gf.Fields) != 1 {
		return false
	}
	ref := refKind(gf.Fields[0].Type.leaf().Named)
	return (ref == registry.RefResource || ref == registry.RefWellKnown) &&
		arm.Type.Kind == goMap && arm.Type.Elem.Kind == goObject && len(arm.Fields) == 0
}

// checkRefLeaf records a reference whose ARM counterpart is not a string value.
func (p *pairer) checkRefLeaf(f *registry.Field, leaf *goNode, path string) {
	ref, t := f.Ref, leaf.Type
	switch {
	case f.Items != nil && f.Items.Ref != "":
		ref = f.Items.Ref
		if t.Kind != goArray {
			break
		}
		t = *t.Elem
	case f.Values != nil && f.Values.Ref != "":
		ref = f.Values.Ref
		if t.Kind != goMap {
			break
		}
		t = *t.Elem
	}
	str := goType{Kind: goNamed, Named: "string"}
	want := str
	switch ref {
	case "", registry.RefOwner, registry.RefConfigMapExport, registry.RefSecretExport:
		return
	case registry.RefSecretMap:
		want = goType{Kind: goMap, Elem: &str}
	}
	if !sameType(t, want) {
		*p.refMismatches = append(*p.refMismatches, fmt.Sprintf("%s %s: %s reference pairs with ARM %s (%s:%d)", p.gvk, path, ref, leaf.Name, leaf.File, leaf.Line))
	}
}

func sameType(a, b goType) bool {
	if a.Kind != b.Kind || a.Named != b.Named {
		return false
	}
	if a.Elem == nil || b.Elem == nil {
		return a.Elem == b.Elem
	}
	return sameType(*a.Elem, *b.Elem)
}

// armJSONPath spells the chain of ARM Go fields as JSON names. The last one
// is spelled like the Kubernetes field when the names agree; a reference
// keeps the spelling of the name it was derived from (workspaceResourceReference
// lands in workspaceResourceId, vnetSubnetReference in vnetSubnetID). Other
// names are looked up in the CRD, status first (it mirrors the ARM GET body),
// else they are the Go name with a lower-case first letter.
func (p *pairer) armJSONPath(chain []*goNode, gf *goNode, kubeJSON string) []string {
	out := make([]string, len(chain))
	for i, n := range chain {
		norm := normalize(n.Name)
		last := i == len(chain)-1
		switch {
		case last && norm == normalize(gf.Name):
			out[i] = kubeJSON
		case last && derivedName(kubeJSON, n.Name) != "":
			out[i] = derivedName(kubeJSON, n.Name)
		case norm == "properties":
			out[i] = "properties"
		case p.names[norm] != "":
			out[i] = p.names[norm]
		default:
			out[i] = lowerFirst(n.Name)
		}
	}
	return out
}

// derivedName spells ARM Go name armGo after the Kubernetes JSON name it was
// renamed to: kubeJSON without its reference suffix, followed by the rest of
// armGo. It returns "" when kubeJSON carries no such suffix or armGo does not
// start with the remaining base.
func derivedName(kubeJSON, armGo string) string {
	for _, suffix := range []string{"References", "Reference", "FromConfig", "FromSecret"} {
		if !strings.HasSuffix(strings.ToLower(kubeJSON), strings.ToLower(suffix)) {
			continue
		}
		base := kubeJSON[:len(kubeJSON)-len(suffix)]
		if base == "" {
			return lowerFirst(armGo)
		}
		if len(armGo) >= len(base) && strings.EqualFold(armGo[:len(base)], base) {
			return base + armGo[len(base):]
		}
		return ""
	}
	return ""
}

func lowerFirst(s string) string { return strings.ToLower(s[:1]) + s[1:] }

// locate finds the ARM field that Go field gf (JSON name json, Go siblings
// siblings) lands in. Besides the plain name rules of findARM it knows three
// renamings ASO applies when flattening:
//   - "properties_type" is Properties.Type, kept apart from a top-level Type;
//   - at the top level a name colliding with status (conditions) is prefixed
//     with the kind (Rule's ruleConditions is ARM conditions);
//   - a Reference may stand for an ARM object holding only an Id
//     (ipamPoolPrefixAllocations[].reference is pool.id; in status, id).
//
// When the JSON spelling of the path is known from the name itself it is
// returned too; otherwise names is nil.
func (p *pairer) locate(arm, gf *goNode, json string, siblings []*goNode, atRoot bool) (chain []*goNode, names []string) {
	if chain := findARM(arm, gf); chain != nil {
		return chain, nil
	}
	if strings.Contains(json, "_") {
		segs := strings.Split(json, "_")
		at := arm
		for _, seg := range segs {
			n := at.fieldNorm(normalize(seg))
			if n == nil {
				chain = nil
				break
			}
			chain, at = append(chain, n), n
		}
		if chain != nil {
			return chain, segs
		}
	}
	if rest, ok := strings.CutPrefix(normalize(gf.Name), p.kind); ok && atRoot && rest != "" {
		if chain := searchARM(arm, rest); chain != nil {
			return chain, nil
		}
	}
	if gf.Name == "Reference" || gf.Name == "Id" {
		taken := map[string]bool{}
		for _, s := range siblings {
			taken[normalize(s.Name)] = true
		}
		var found []*goNode
		for _, n := range arm.Fields {
			if n.Type.Kind == goObject && len(n.Fields) == 1 && normalize(n.Fields[0].Name) == "id" && !taken[normalize(n.Name)] {
				found = append(found, n)
			}
		}
		if len(found) == 1 {
			return []*goNode{found[0], found[0].Fields[0]}, nil
		}
	}
	return nil, nil
}

// findARM finds the ARM field that Go field gf lands in, looking into the
// ARM object's Properties wrappers when the spec is flattened. It returns the
// chain of ARM fields from arm's properties down to the match, or nil.
func findARM(arm *goNode, gf *goNode) []*goNode {
	for _, cand := range armCandidates(gf) {
		if chain := searchARM(arm, cand); chain != nil {
			return chain
		}
	}
	return nil
}

func searchARM(arm *goNode, norm string) []*goNode {
	if arm == nil {
		return nil
	}
	for _, n := range arm.Fields {
		if normalize(n.Name) == norm {
			return []*goNode{n}
		}
	}
	if props := arm.field("Properties"); props != nil && props.Type.Kind == goObject {
		if chain := searchARM(props, norm); chain != nil {
			return append([]*goNode{props}, chain...)
		}
	}
	return nil
}

// armCandidates lists the normalized ARM names a Go field may have: its own,
// and for references the id-typed names ASO derives them from
// (VnetSubnetReference from VnetSubnetID, Reference from Id,
// AssignableScopesReferences from AssignableScopes, PrincipalIdFromConfig from PrincipalId).
func armCandidates(gf *goNode) []string {
	norm := normalize(gf.Name)
	cands := []string{norm}
	switch refKind(gf.Type.leaf().Named) {
	case registry.RefResource, registry.RefWellKnown:
		if base, ok := strings.CutSuffix(norm, "references"); ok {
			cands = append(cands, base+"ids", base+"id", base)
		} else if base, ok := strings.CutSuffix(norm, "reference"); ok {
			cands = append(cands, base+"id", base)
		}
	case registry.RefConfigMap:
		if base, ok := strings.CutSuffix(norm, "fromconfig"); ok {
			cands = append(cands, base)
		}
	case registry.RefSecret:
		if base, ok := strings.CutSuffix(norm, "fromsecret"); ok {
			cands = append(cands, base)
		}
	}
	return cands
}

// refKind maps an outline Go type name to the kind of reference it is.
func refKind(named string) registry.Ref {
	switch named {
	case "genruntime.ResourceReference":
		return registry.RefResource
	case "genruntime.WellKnownResourceReference":
		return registry.RefWellKnown
	case "genruntime.KnownResourceReference", "genruntime.ArbitraryOwnerReference":
		return registry.RefOwner
	case "genruntime.SecretReference":
		return registry.RefSecret
	case "genruntime.SecretMapReference":
		return registry.RefSecretMap
	case "genruntime.ConfigMapReference":
		return registry.RefConfigMap
	case "genruntime.ConfigMapDestination":
		return registry.RefConfigMapExport
	case "genruntime.SecretDestination":
		return registry.RefSecretExport
	}
	return ""
}

type namePair struct {
	json string
	kube *goNode // nil when the property has no Go field
}

// pairNames pairs each JSON property of s with a Go field: by letters and
// digits, then by the Go name the description starts with, then by position
// among what is left (one-of alternatives are shortened in Go).
func pairNames(s *schema, goFields []*goNode) []namePair {
	jsonNames := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		jsonNames = append(jsonNames, k)
	}
	sort.Strings(jsonNames)
	pairs := make([]namePair, len(jsonNames))
	used := map[*goNode]bool{}
	byNorm := map[string]*goNode{}
	byName := map[string]*goNode{}
	for _, g := range goFields {
		byNorm[normalize(g.Name)] = g
		byName[g.Name] = g
	}
	for i, j := range jsonNames {
		pairs[i].json = j
		if g := byNorm[normalize(j)]; g != nil && !used[g] {
			pairs[i].kube, used[g] = g, true
		}
	}
	for i, j := range jsonNames {
		if pairs[i].kube != nil {
			continue
		}
		if g := byName[goNameFromDescription(s.Properties[j].Description)]; g != nil && !used[g] {
			pairs[i].kube, used[g] = g, true
		}
	}
	var leftGo []*goNode
	for _, g := range goFields {
		if !used[g] {
			leftGo = append(leftGo, g)
		}
	}
	for i := range pairs {
		if pairs[i].kube == nil && len(leftGo) > 0 {
			pairs[i].kube, leftGo = leftGo[0], leftGo[1:]
		}
	}
	return pairs
}

// schemaField copies type and validation rules from a CRD schema node.
func schemaField(s *schema) *registry.Field {
	f := &registry.Field{
		Pattern:   s.Pattern,
		MinLength: s.MinLength,
		MaxLength: s.MaxLength,
		Minimum:   s.Minimum,
		Maximum:   s.Maximum,
		MinItems:  s.MinItems,
		MaxItems:  s.MaxItems,
	}
	for _, e := range s.Enum {
		f.Enum = append(f.Enum, fmt.Sprint(e))
	}
	switch {
	case s.Type == "object" && s.AdditionalProperties != nil:
		f.Type = registry.TypeMap
	case s.Type == "object":
		f.Type = registry.TypeObject
	case s.Type == "array" && s.Items != nil:
		f.Type = registry.TypeArray
	case s.Type == "string":
		f.Type = registry.TypeString
	case s.Type == "integer":
		f.Type = registry.TypeInteger
	case s.Type == "number":
		f.Type = registry.TypeNumber
	case s.Type == "boolean":
		f.Type = registry.TypeBoolean
	default:
		f.Type = registry.TypeAny
	}
	return f
}
