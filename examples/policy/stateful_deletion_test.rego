package main

test_deleting_a_database_server_is_denied if {
	results := deny_stateful_deletion with input as {"resources": [{
		"address": "dbforpostgresql.azure.com/FlexibleServer/default/db",
		"armType": "Microsoft.DBforPostgreSQL/flexibleServers",
		"action": "delete",
	}]}
	results == {{
		"msg": "dbforpostgresql.azure.com/FlexibleServer/default/db holds data and is to be deleted: that needs a change of its own",
		"address": "dbforpostgresql.azure.com/FlexibleServer/default/db",
	}}
}

test_replacing_a_storage_account_is_denied if {
	count(deny_stateful_deletion) == 1 with input as {"resources": [{
		"address": "storage.azure.com/StorageAccount/default/sa",
		"armType": "Microsoft.Storage/storageAccounts",
		"action": "replace",
	}]}
}

test_deleting_a_stateless_kind_passes if {
	count(deny_stateful_deletion) == 0 with input as {"resources": [{
		"address": "network.azure.com/NetworkSecurityGroup/default/nsg",
		"armType": "Microsoft.Network/networkSecurityGroups",
		"action": "delete",
	}]}
}

test_updating_a_database_passes if {
	count(deny_stateful_deletion) == 0 with input as {"resources": [{
		"address": "dbforpostgresql.azure.com/FlexibleServer/default/db",
		"armType": "Microsoft.DBforPostgreSQL/flexibleServers",
		"action": "update",
	}]}
}
