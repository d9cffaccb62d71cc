package extensions

// Microsoft.KubernetesConfiguration/extensions: the provider takes the
// extension's identity when it is created and does not return it; what it
// returns is the identity AKS assigns (aksAssignedIdentity).
type kubernetesExtension struct{ storedAsSent }

func init() { register("Microsoft.KubernetesConfiguration/extensions", kubernetesExtension{}) }

func (kubernetesExtension) NotReturned(path string) bool { return path == "identity" }
