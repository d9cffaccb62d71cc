package main

test_location_outside_the_list_is_denied if {
	results := deny_location with input as {"resources": [{
		"address": "network.azure.com/VirtualNetwork/default/vnet",
		"action": "create",
		"desired": {"location": "eastus"},
	}]}
	count(results) == 1
	some result in results
	result.address == "network.azure.com/VirtualNetwork/default/vnet"
	contains(result.msg, "\"eastus\"")
}

test_display_name_of_an_allowed_location_passes if {
	count(deny_location) == 0 with input as {"resources": [{
		"address": "network.azure.com/VirtualNetwork/default/vnet",
		"action": "update",
		"desired": {"location": "West Europe"},
	}]}
}

test_deletion_elsewhere_is_not_a_placement if {
	count(deny_location) == 0 with input as {"resources": [{
		"address": "network.azure.com/VirtualNetwork/default/old",
		"action": "delete",
		"current": {"location": "eastus"},
	}]}
}
