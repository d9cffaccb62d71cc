package armfunc

import "testing"

// Known ARM outputs of uniqueString. Each pair is what ARM returned for the inputs, as recorded
// by the source named beside it.
func TestUniqueStringMatchesARM(t *testing.T) {
	cases := []struct {
		parts []string
		want  string
		from  string
	}{
		// Azure/terraform-provider-azapi, internal/services/functions/unique_string_function_test.go
		// (azapi's unique_string reproduces ARM's for migrations). 63 bytes: a seven-byte tail.
		{[]string{"/subscriptions/00000000-0000-0000-0000-000000000000", "resource-id"}, "cwvxuqg24sifi", "azapi"},
		// A published pure-bash reimplementation's self-test, "verified against Bicep uniqueString() output".
		{[]string{"test"}, "rbgf3xv4ufgzg", "uniquestring.sh"},
		{[]string{"hello", "world"}, "a7wkljktk6wne", "uniquestring.sh"},
		{[]string{"abc"}, "cgtzqvhu4i23s", "uniquestring.sh"},
		{[]string{"/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/my-rg"}, "bmg7c6xu4tw46", "uniquestring.sh"},
		{[]string{"foo", "bar", "baz"}, "xzi4ioaxtmth4", "uniquestring.sh"},
	}
	for _, c := range cases {
		if got := UniqueString(c.parts...); got != c.want {
			t.Errorf("UniqueString(%q) = %s, ARM gives %s (%s)", c.parts, got, c.want, c.from)
		}
	}
}
