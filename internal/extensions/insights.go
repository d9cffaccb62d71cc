package extensions

import "regexp"

// Azure Monitor: the operator's insights/data_collection_rule_extension.go
// retries WorkspaceNotFound (the Log Analytics workspace not yet visible),
// scheduled_query_rule_extensions.go a BadRequest for a scope that does not
// exist yet or that the rule's identity cannot read yet.
func init() {
	register("Microsoft.Insights/dataCollectionRules", codes{"WorkspaceNotFound"})
	register("Microsoft.Insights/scheduledQueryRules", codeMessage{"BadRequest", regexp.MustCompile(`does not exist|insufficient access`)})
}
