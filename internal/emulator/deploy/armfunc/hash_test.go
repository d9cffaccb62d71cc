package armfunc

import (
	"strings"
	"testing"

	"github.com/google/uuid"
)

// ARM's outputs of uniqueString for known inputs, each with where it was published.
func TestUniqueStringMatchesARM(t *testing.T) {
	cases := []struct {
		parts []string
		want  string
		from  string
	}{
		// Azure/bicep, src/Bicep.Cli.IntegrationTests/SnapshotCommandTests.cs: `bicep snapshot`
		// evaluates 'store${uniqueString(resourceGroup().id)}' with ARM's own template engine
		// library for subscription 00000000-… and group myRg, and expects storejs26ofeqkqeve.
		{[]string{"/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/myRg"}, "js26ofeqkqeve", "Bicep snapshot test"},
		// Azure/terraform-provider-azapi, internal/services/functions/unique_string_function_test.go:
		// azapi's unique_string reproduces ARM's for migrations. 63 bytes: a seven-byte tail.
		{[]string{"/subscriptions/00000000-0000-0000-0000-000000000000", "resource-id"}, "cwvxuqg24sifi", "azapi provider test"},
		// A marketplace solution's test (Modm.Tests, ArmFunctionsTests) holding "valueFromArmTemplate",
		// the value a real deployment output for this VM's resource ID.
		{[]string{"/subscriptions/31e9f9a0-9fd2-4294-a0a3-0101246d9700/resourceGroups/rg-modm201-20230913120256/providers/Microsoft.Compute/virtualMachines/bobjacmodm201"}, "yvjxno3je5on2", "ARM deployment output"},
		// A published pure-bash reimplementation's self-test, "verified against Bicep uniqueString() output".
		{[]string{"test"}, "rbgf3xv4ufgzg", "uniquestring.sh"},
		{[]string{"hello", "world"}, "a7wkljktk6wne", "uniquestring.sh"},
		{[]string{"foo", "bar", "baz"}, "xzi4ioaxtmth4", "uniquestring.sh"},
	}
	for _, c := range cases {
		if got := UniqueString(c.parts...); got != c.want {
			t.Errorf("UniqueString(%q) = %s, ARM gives %s (%s)", c.parts, got, c.want, c.from)
		}
	}
}

// guid() is a version-5 UUID of the parts joined with '-' in ARM's namespace. No ARM output of
// guid for published inputs was found to test against (MicrosoftDocs/azure-docs issue 121776
// asks for one; the docs give none), so this checks the two facts it rests on: the name-based
// UUID matches RFC 9562's published vector, and GUID is that UUID of the '-'-joined parts in
// ARM's namespace, which Microsoft gives customers for exactly this reproduction.
func TestGUIDIsARMsNameBasedUUID(t *testing.T) {
	// RFC 9562 appendix A.4: UUIDv5 of "www.example.com" in the DNS namespace.
	if got := nameBased(uuid.NameSpaceDNS, "www.example.com"); got != "2ed6657d-e927-568b-95e1-2665a8aea6a2" {
		t.Errorf("name-based UUID of www.example.com = %s, RFC 9562 gives 2ed6657d-e927-568b-95e1-2665a8aea6a2", got)
	}
	arm := uuid.MustParse("11fb06fb-712d-4ddd-98c7-e71bbd588830")
	scope := "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/myRg"
	for _, parts := range [][]string{{"a"}, {scope, "b24988ac-6180-42a0-ab88-20f7382dd24c"}, {"ü", "", "x"}} {
		want := nameBased(arm, strings.Join(parts, "-"))
		got := GUID(parts...)
		if got != want {
			t.Errorf("GUID(%q) = %s, want %s", parts, got, want)
		}
		if u := uuid.MustParse(got); u.Version() != 5 || u.Variant() != uuid.RFC4122 {
			t.Errorf("GUID(%q) = %s is version %d, variant %v; ARM's are version 5, RFC 4122", parts, got, u.Version(), u.Variant())
		}
	}
	if GUID("a", "b") == GUID("ab") || GUID("a-b") != GUID("a", "b") {
		t.Error("guid's parameters are joined with '-', so guid('a','b') is guid('a-b') and not guid('ab')")
	}
}
