package extensions

// Container Apps: the operator's app/container_app_extension_types.go and
// job_extension_types.go retry ManagedEnvironmentNotProvisioned (the
// environment still being created).
func init() {
	register("Microsoft.App/containerApps", codes{"ManagedEnvironmentNotProvisioned"})
	register("Microsoft.App/jobs", codes{"ManagedEnvironmentNotProvisioned"})
}
