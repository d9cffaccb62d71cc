package extensions

// Azure SQL: the operator's sql/servers_vulnerability_assessment_extension_types.go
// retries VulnerabilityAssessmentADSIsDisabled (the server's security alert
// policy still being enabled).
func init() {
	register("Microsoft.Sql/servers/vulnerabilityAssessments", codes{"VulnerabilityAssessmentADSIsDisabled"})
}
