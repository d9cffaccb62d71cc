# Every Azure resource this change writes that carries tags (one with a
# location: resource groups, accounts, servers, networks) names the cost
# centre that pays for it.
package main

required_tags := {"cost-centre"}

# The actions that send the body to Azure.
writes := {"create", "update", "replace"}

deny_missing_tag contains {"msg": msg, "address": r.address} if {
	some r in input.resources
	writes[r.action]
	r.desired.location
	some tag in required_tags
	not has_tag(r.desired, tag)
	msg := sprintf("%s has no %q tag", [r.address, tag])
}

has_tag(body, tag) if trim_space(body.tags[tag]) != ""
