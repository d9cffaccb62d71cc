package main

test_untagged_storage_account_is_denied if {
	results := deny_missing_tag with input as {"resources": [{
		"address": "storage.azure.com/StorageAccount/default/sa",
		"action": "create",
		"desired": {"location": "westeurope", "tags": {"team": "data"}},
	}]}
	results == {{
		"msg": "storage.azure.com/StorageAccount/default/sa has no \"cost-centre\" tag",
		"address": "storage.azure.com/StorageAccount/default/sa",
	}}
}

test_empty_tag_is_denied if {
	count(deny_missing_tag) == 1 with input as {"resources": [{
		"address": "resources.azure.com/ResourceGroup/default/rg",
		"action": "update",
		"desired": {"location": "westeurope", "tags": {"cost-centre": " "}},
	}]}
}

test_tagged_resource_passes if {
	count(deny_missing_tag) == 0 with input as {"resources": [{
		"address": "storage.azure.com/StorageAccount/default/sa",
		"action": "create",
		"desired": {"location": "westeurope", "tags": {"cost-centre": "cc-1234"}},
	}]}
}

test_children_and_unchanged_resources_are_not_checked if {
	count(deny_missing_tag) == 0 with input as {"resources": [
		{
			"address": "storage.azure.com/StorageAccountsBlobServicesContainer/default/c",
			"action": "create",
			"desired": {"properties": {}},
		},
		{
			"address": "storage.azure.com/StorageAccount/default/old",
			"action": "no-change",
			"desired": {"location": "westeurope"},
		},
		{
			"address": "storage.azure.com/StorageAccount/default/gone",
			"action": "delete",
		},
	]}
}
