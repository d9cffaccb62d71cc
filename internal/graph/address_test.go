package graph

import "testing"

func TestMatchAddress(t *testing.T) {
	const address = "dbformysql.azure.com/FlexibleServer/default/db1"
	for pattern, want := range map[string]bool{
		address: true, "DBforMySQL.azure.com/flexibleserver/default/db1": true,
		"FlexibleServer/default/db1": true, "flexibleserver/db1": true,
		"FlexibleServer/db2": false, "FlexibleServer/other/db1": false, "Server/db1": false,
		"db1": false, "dbformysql.azure.com/FlexibleServer/db1": false,
	} {
		if got := MatchAddress(address, pattern); got != want {
			t.Errorf("MatchAddress(%q) = %v, want %v", pattern, got, want)
		}
	}
}
