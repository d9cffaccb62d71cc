package main

import (
	"github.com/azkcli/azk/internal/loader"
)

// baseAddresses are the addresses of the resources the manifests held
// before the change under review (azk plan --base).
func baseAddresses(base string, paths []string, in *inputFlags, namespace string) (map[string]bool, error) {
	res, err := loader.LoadEarlier(base, loader.Options{Paths: paths, Kustomize: in.kustomize, Namespace: namespace, AllowRemote: in.allowRemote})
	if err != nil {
		return nil, err
	}
	addresses := map[string]bool{}
	for _, o := range res.Resources {
		addresses[o.Address()] = true
	}
	return addresses, nil
}
