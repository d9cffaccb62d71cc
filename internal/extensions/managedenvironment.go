package extensions

import "strings"

// Microsoft.App/managedEnvironments: Container Apps adds the Consumption
// workload profile to every environment with workload profiles ("the
// Consumption profile is added by default to every workload profiles
// environment", Container Apps documentation), and a PUT without it does
// not remove it.
type managedEnvironment struct{ storedAsSent }

func init() { register("Microsoft.App/managedEnvironments", managedEnvironment{}) }

func (managedEnvironment) AddedByProvider(path string, item any) bool {
	m, _ := item.(map[string]any)
	name, _ := m["name"].(string)
	profile, _ := m["workloadProfileType"].(string)
	return path == "properties.workloadProfiles" && strings.EqualFold(name, "Consumption") && strings.EqualFold(profile, "Consumption")
}
