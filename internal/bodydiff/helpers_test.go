package bodydiff

import "github.com/azkcli/azk/internal/armid"

// armTypeOf is the resource type of an ARM ID: "Microsoft.Network/virtualNetworks/subnets"; "" when id is not one.
func armTypeOf(id string) string {
	if parsed, err := armid.Parse(id); err == nil {
		return parsed.Type()
	}
	return ""
}
