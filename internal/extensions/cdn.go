package extensions

import "regexp"

// Azure Front Door (Microsoft.Cdn): the operator's cdn/route_extension_types.go
// and rule_extension_types.go retry the BadRequest a route or rule gets
// until its origin group has an enabled origin;
// security_policy_extension_types.go the BadRequest a security policy gets
// for a domain not yet associated with the profile.
func init() {
	originPending := codeMessage{"BadRequest", regexp.MustCompile(`originGroup is created successfully.*at least one enabled origin is created|at least one enabled origin is created.*originGroup is created successfully`)}
	register("Microsoft.Cdn/profiles/afdEndpoints/routes", originPending)
	register("Microsoft.Cdn/profiles/ruleSets/rules", originPending)
	register("Microsoft.Cdn/profiles/securityPolicies", codeMessage{"BadRequest",
		regexp.MustCompile(`is not associated with the AFDX profile.*is in a invalid provisioning state|is in a invalid provisioning state.*is not associated with the AFDX profile`)})
}
