# Resources this change writes are placed only in the regions the team
# approved (ARM's location names; "global" is where global services live).
package main

allowed_locations := {"westeurope", "northeurope", "swedencentral", "global"}

deny_location contains {"msg": msg, "address": r.address} if {
	some r in input.resources
	r.action in {"create", "update", "replace"}
	location := normalized(r.desired.location)
	not location in allowed_locations
	msg := sprintf("%s is in %q, which is not an allowed location (%s)", [r.address, r.desired.location, concat(", ", sort(allowed_locations))])
}

# ARM accepts "West Europe" for "westeurope".
normalized(location) := lower(replace(location, " ", ""))
