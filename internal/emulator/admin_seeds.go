package emulator

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/providers"
)

// The admin API's view of the world outside the emulator, which ARM's
// pre-flight APIs answer from and no ARM API sets (see providers.Seeds):
//
//	GET|PUT /_emulator/names      {"taken": [{"type", "name"}]}: global names other customers hold
//	GET|PUT /_emulator/offerings  {"offerings": [{"type", "locations"}]}: the only locations a type is offered in
//	GET|PUT /_emulator/quotas     {"quotas": [{"namespace", "location", "name", "limit", "currentValue"}]}
//	GET|PUT /_emulator/vmsizes    {"vmSizes": [{"name", "family", "vCPUs", "memoryGB", "notIn"}]}
//
// A PUT replaces the list; they are kept in memory only.

// World is the world outside the emulator, as the admin API reads and writes it.
type World struct {
	Taken     []providers.TakenName `json:"taken,omitempty"`
	Offerings []providers.Offering  `json:"offerings,omitempty"`
	Quotas    []providers.Quota     `json:"quotas,omitempty"`
	VMSizes   []providers.VMSize    `json:"vmSizes,omitempty"`
}

// serveSeeds answers the seed endpoints; false for other paths.
func (s *Server) serveSeeds(w http.ResponseWriter, r *http.Request, name string) bool {
	get := map[string]func() World{
		"names":     func() World { return World{Taken: s.seeds.Taken()} },
		"offerings": func() World { return World{Offerings: s.seeds.Offerings()} },
		"quotas":    func() World { return World{Quotas: s.seeds.Quotas()} },
		"vmsizes":   func() World { return World{VMSizes: s.seeds.VMSizes()} },
	}[name]
	if get == nil {
		return false
	}
	switch r.Method {
	case http.MethodGet:
		armcore.WriteJSON(w, http.StatusOK, get())
	case http.MethodPut:
		var v World
		if err := json.NewDecoder(io.LimitReader(r.Body, s.opts.coreConfig().BodyLimit())).Decode(&v); err != nil {
			armcore.WriteError(w, http.StatusBadRequest, "InvalidRequestContent", "%s: %v", name, err)
			return true
		}
		switch name {
		case "names":
			s.seeds.SetTaken(v.Taken)
		case "offerings":
			s.seeds.SetOfferings(v.Offerings)
		case "quotas":
			s.seeds.SetQuotas(v.Quotas)
		case "vmsizes":
			s.seeds.SetVMSizes(v.VMSizes)
		}
		armcore.WriteJSON(w, http.StatusOK, get())
	default:
		armcore.WriteError(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "%s is not supported on %s", r.Method, r.URL.Path)
	}
	return true
}

// SetTakenNames says which global names other Azure customers hold.
func (c *AdminClient) SetTakenNames(ctx context.Context, taken []providers.TakenName) error {
	return c.do(ctx, http.MethodPut, "names", World{Taken: taken}, nil)
}

// SetOfferings restricts resource types to the locations listed.
func (c *AdminClient) SetOfferings(ctx context.Context, offerings []providers.Offering) error {
	return c.do(ctx, http.MethodPut, "offerings", World{Offerings: offerings}, nil)
}

// SetQuotas sets usages' limits and current values outside the emulator.
func (c *AdminClient) SetQuotas(ctx context.Context, quotas []providers.Quota) error {
	return c.do(ctx, http.MethodPut, "quotas", World{Quotas: quotas}, nil)
}

// SetVMSizes replaces the VM sizes the Compute SKUs list (nil: the defaults).
func (c *AdminClient) SetVMSizes(ctx context.Context, sizes []providers.VMSize) error {
	return c.do(ctx, http.MethodPut, "vmsizes", World{VMSizes: sizes}, nil)
}
