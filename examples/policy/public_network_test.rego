package main

test_storage_account_open_by_default_is_denied if {
	results := deny_public_network_access with input as {"resources": [{
		"address": "storage.azure.com/StorageAccount/default/sa",
		"armType": "Microsoft.Storage/storageAccounts",
		"action": "create",
		"desired": {"properties": {"minimumTlsVersion": "TLS1_2"}},
	}]}
	results == {{
		"msg": "storage.azure.com/StorageAccount/default/sa allows public network access: set properties.publicNetworkAccess to \"Disabled\"",
		"address": "storage.azure.com/StorageAccount/default/sa",
	}}
}

test_storage_account_enabled_is_denied if {
	count(deny_public_network_access) == 1 with input as {"resources": [{
		"address": "storage.azure.com/StorageAccount/default/sa",
		"armType": "Microsoft.Storage/storageAccounts",
		"action": "update",
		"desired": {"properties": {"publicNetworkAccess": "Enabled"}},
	}]}
}

test_private_storage_and_databases_pass if {
	count(deny_public_network_access) == 0 with input as {"resources": [
		{
			"address": "storage.azure.com/StorageAccount/default/sa",
			"armType": "Microsoft.Storage/storageAccounts",
			"action": "create",
			"desired": {"properties": {"publicNetworkAccess": "Disabled"}},
		},
		{
			"address": "dbforpostgresql.azure.com/FlexibleServer/default/db",
			"armType": "Microsoft.DBforPostgreSQL/flexibleServers",
			"action": "create",
			"desired": {"properties": {"network": {"delegatedSubnetResourceId": "/subscriptions/s/resourceGroups/g/providers/Microsoft.Network/virtualNetworks/v/subnets/db"}}},
		},
	]}
}

test_public_postgres_server_is_denied if {
	count(deny_public_network_access) == 1 with input as {"resources": [{
		"address": "dbforpostgresql.azure.com/FlexibleServer/default/db",
		"armType": "Microsoft.DBforPostgreSQL/flexibleServers",
		"action": "create",
		"desired": {"properties": {"network": {"publicNetworkAccess": "Enabled"}}},
	}]}
}

test_other_types_are_not_checked if {
	count(deny_public_network_access) == 0 with input as {"resources": [{
		"address": "network.azure.com/PublicIPAddress/default/ip",
		"armType": "Microsoft.Network/publicIPAddresses",
		"action": "create",
		"desired": {"properties": {}},
	}]}
}
