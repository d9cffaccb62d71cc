package corpus

import "strings"

// KnownDefects are errors azk rightly reports in samples the operator's
// harness never recorded, or that rely on objects the harness itself creates.
// Each is checked to still occur, so the list cannot go stale.
var KnownDefects = []struct{ Folder, Message, Reason string }{
	{"compute/v1api", `reference target keyvault.azure.com/Vault "aso-sample-kv" is not in the input`, "no sample defines the vault; disk encryption sets are not in the recordings"},
	{"compute/v20220702", `reference target keyvault.azure.com/Vault "aso-sample-kv" is not in the input`, "as above"},
	{"compute/v20240302", `reference target keyvault.azure.com/Vault "aso-sample-kv" is not in the input`, "as above"},
	{"insights/v1api", "duplicate object", "two Webtest versions share the name samplewebtest; not in the recordings"},
	{"redhatopenshift/v1api", "duplicate object", "two refs/ files define RoleAssignment aso-sample-sp-to-vnet"},
	{"redhatopenshift/v1api20260630preview", "", "owner.group/kind the CRD lacks, required fields missing, references to objects not in the folder; not in the recordings"},
}

// KnownDefect returns the index in KnownDefects of the defect that explains an
// error message in a samples folder (relative to samples/), or -1.
func KnownDefect(folder, message string) int {
	for i, d := range KnownDefects {
		if d.Folder == folder && strings.Contains(message, d.Message) {
			return i
		}
	}
	return -1
}
