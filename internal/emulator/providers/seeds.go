package providers

import (
	"strings"
	"sync"
)

// Seeds are the facts of the world outside the emulator that ARM's
// pre-flight APIs answer from and that no ARM API can set: names taken by
// other Azure customers, the locations a type is offered in, quotas and
// current usage, and the VM sizes the Compute SKUs list. Tests and scripts
// set them through the admin API (/_emulator/names, offerings, quotas,
// vmsizes); they are kept in memory only, like the faults.
type Seeds struct {
	mu        sync.RWMutex
	taken     []TakenName
	offerings []Offering
	quotas    []Quota
	vmSizes   []VMSize
}

// TakenName is a global name another Azure customer holds.
type TakenName struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// Offering restricts a resource type to the locations listed (display
// names or names, e.g. "West US 2" or "westus2"); a type no offering names
// is offered everywhere.
type Offering struct {
	Type      string   `json:"type"`
	Locations []string `json:"locations"`
}

// Quota sets one usage of a provider in a location: its limit, and the
// current value outside the emulator (what the subscription's resources
// the emulator does not hold already use); the emulator adds what it holds.
type Quota struct {
	Namespace    string `json:"namespace"`
	Location     string `json:"location"`
	Name         string `json:"name"`
	Limit        int64  `json:"limit"`
	CurrentValue int64  `json:"currentValue"`
}

// VMSize is a virtual machine size the Compute resource SKUs list.
type VMSize struct {
	Name     string  `json:"name"`
	Family   string  `json:"family"`
	VCPUs    int     `json:"vCPUs"`
	MemoryGB float64 `json:"memoryGB"`
	// NotIn are the locations where the size is restricted
	// (NotAvailableForSubscription).
	NotIn []string `json:"notIn,omitempty"`
}

// defaultVMSizes are common Azure VM sizes with their published vCPUs,
// memory and quota family, so that a fresh emulator can tell a pool's cores.
var defaultVMSizes = []VMSize{
	{Name: "Standard_B2s", Family: "standardBSFamily", VCPUs: 2, MemoryGB: 4},
	{Name: "Standard_B2ms", Family: "standardBSFamily", VCPUs: 2, MemoryGB: 8},
	{Name: "Standard_A2_v2", Family: "standardAv2Family", VCPUs: 2, MemoryGB: 4},
	{Name: "Standard_D2_v3", Family: "standardDv3Family", VCPUs: 2, MemoryGB: 8},
	{Name: "Standard_D4_v3", Family: "standardDv3Family", VCPUs: 4, MemoryGB: 16},
	{Name: "Standard_D2s_v3", Family: "standardDSv3Family", VCPUs: 2, MemoryGB: 8},
	{Name: "Standard_D4s_v3", Family: "standardDSv3Family", VCPUs: 4, MemoryGB: 16},
	{Name: "Standard_D8s_v3", Family: "standardDSv3Family", VCPUs: 8, MemoryGB: 32},
	{Name: "Standard_DS2_v2", Family: "standardDSv2Family", VCPUs: 2, MemoryGB: 7},
	{Name: "Standard_DS3_v2", Family: "standardDSv2Family", VCPUs: 4, MemoryGB: 14},
	{Name: "Standard_D2s_v5", Family: "standardDSv5Family", VCPUs: 2, MemoryGB: 8},
	{Name: "Standard_D4s_v5", Family: "standardDSv5Family", VCPUs: 4, MemoryGB: 16},
	{Name: "Standard_D8s_v5", Family: "standardDSv5Family", VCPUs: 8, MemoryGB: 32},
	{Name: "Standard_D2ds_v5", Family: "standardDDSv5Family", VCPUs: 2, MemoryGB: 8},
	{Name: "Standard_E2s_v3", Family: "standardESv3Family", VCPUs: 2, MemoryGB: 16},
	{Name: "Standard_F2s_v2", Family: "standardFSv2Family", VCPUs: 2, MemoryGB: 4},
}

// NewSeeds returns an empty world: no name taken outside, every type
// offered everywhere, ARM's default limits, the default VM sizes.
func NewSeeds() *Seeds { return &Seeds{vmSizes: defaultVMSizes} }

// Taken returns the names taken outside the emulator.
func (s *Seeds) Taken() []TakenName {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]TakenName{}, s.taken...)
}

// SetTaken replaces the names taken outside the emulator.
func (s *Seeds) SetTaken(v []TakenName) { s.mu.Lock(); s.taken = v; s.mu.Unlock() }

// Offerings returns the location restrictions of resource types.
func (s *Seeds) Offerings() []Offering {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]Offering{}, s.offerings...)
}

// SetOfferings replaces the location restrictions of resource types.
func (s *Seeds) SetOfferings(v []Offering) { s.mu.Lock(); s.offerings = v; s.mu.Unlock() }

// Quotas returns the quotas set.
func (s *Seeds) Quotas() []Quota {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]Quota{}, s.quotas...)
}

// SetQuotas replaces the quotas set.
func (s *Seeds) SetQuotas(v []Quota) { s.mu.Lock(); s.quotas = v; s.mu.Unlock() }

// VMSizes returns the VM sizes the Compute SKUs list.
func (s *Seeds) VMSizes() []VMSize {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]VMSize{}, s.vmSizes...)
}

// SetVMSizes replaces the VM sizes; nil restores the defaults.
func (s *Seeds) SetVMSizes(v []VMSize) {
	if v == nil {
		v = defaultVMSizes
	}
	s.mu.Lock()
	s.vmSizes = v
	s.mu.Unlock()
}

func (s *Seeds) isTaken(typ, name string) bool {
	for _, t := range s.Taken() {
		if strings.EqualFold(t.Type, typ) && strings.EqualFold(t.Name, name) {
			return true
		}
	}
	return false
}

// offeredIn is the locations typ is restricted to, and whether it is.
func (s *Seeds) offeredIn(typ string) ([]string, bool) {
	for _, o := range s.Offerings() {
		if strings.EqualFold(o.Type, typ) {
			return o.Locations, true
		}
	}
	return nil, false
}

func (s *Seeds) vmSize(name string) (VMSize, bool) {
	for _, v := range s.VMSizes() {
		if strings.EqualFold(v.Name, name) {
			return v, true
		}
	}
	return VMSize{}, false
}

// normLocation is a location's name: "West US 2" and "westus2" alike.
func normLocation(l string) string { return strings.ToLower(strings.ReplaceAll(l, " ", "")) }
