package armfunc

import (
	"fmt"
	"math/big"
	"net/netip"
)

func init() {
	register("parseCidr", parseCidr)
	register("cidrSubnet", cidrSubnet)
	register("cidrHost", cidrHost)
}

// network reads a CIDR string's range: its first address and prefix length.
func network(name string, args []any) (netip.Prefix, error) {
	s, err := stringArg(name, args, 0)
	if err != nil {
		return netip.Prefix{}, err
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("The template language function '%s' expects an IP address range in CIDR notation, not '%s'.", name, s)
	}
	return p.Masked(), nil
}

func addressBits(p netip.Prefix) int {
	return p.Addr().BitLen()
}

func toInt(a netip.Addr) *big.Int {
	return new(big.Int).SetBytes(a.AsSlice())
}

func fromInt(n *big.Int, bits int) netip.Addr {
	b := make([]byte, bits/8)
	n.FillBytes(b)
	a, _ := netip.AddrFromSlice(b)
	return a
}

// lastAddress is the range's highest address (the broadcast address of an IPv4 range).
func lastAddress(p netip.Prefix) netip.Addr {
	hostBits := uint(addressBits(p) - p.Bits())
	size := new(big.Int).Lsh(big.NewInt(1), hostBits)
	return fromInt(new(big.Int).Add(toInt(p.Addr()), size.Sub(size, big.NewInt(1))), addressBits(p))
}

func parseCidr(name string, args []any) (any, error) {
	if err := count(name, args, 1, 1); err != nil {
		return nil, err
	}
	p, err := network(name, args)
	if err != nil {
		return nil, err
	}
	bits := addressBits(p)
	mask := fromInt(new(big.Int).Lsh(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(p.Bits())), big.NewInt(1)), uint(bits-p.Bits())), bits)
	last := lastAddress(p)
	out := map[string]any{
		"network": p.Addr().String(),
		"netmask": mask.String(),
		"cidr":    int64(p.Bits()),
	}
	if p.Addr().Is4() {
		out["broadcast"] = last.String()
		first, lastUsable := p.Addr(), last
		// An IPv4 range keeps its first and last addresses for the network and the broadcast,
		// except where it is too small to (/31 and /32).
		if p.Bits() < 31 {
			first, lastUsable = first.Next(), last.Prev()
		}
		out["firstUsable"], out["lastUsable"] = first.String(), lastUsable.String()
	} else {
		out["firstUsable"], out["lastUsable"] = p.Addr().String(), last.String()
	}
	return out, nil
}

func cidrSubnet(name string, args []any) (any, error) {
	if err := count(name, args, 3, 3); err != nil {
		return nil, err
	}
	p, err := network(name, args)
	if err != nil {
		return nil, err
	}
	newBits, err := intArg(name, args, 1)
	if err != nil {
		return nil, err
	}
	index, err := intArg(name, args, 2)
	if err != nil {
		return nil, err
	}
	bits := addressBits(p)
	if newBits < int64(p.Bits()) || newBits > int64(bits) {
		return nil, fmt.Errorf("The template language function '%s' expects its new CIDR to be between %d and %d, but it is %d.", name, p.Bits(), bits, newBits)
	}
	subnets := new(big.Int).Lsh(big.NewInt(1), uint(newBits)-uint(p.Bits()))
	if index < 0 || big.NewInt(index).Cmp(subnets) >= 0 {
		return nil, fmt.Errorf("The template language function '%s' expects its subnet index to be between 0 and %s, but it is %d.", name, new(big.Int).Sub(subnets, big.NewInt(1)), index)
	}
	offset := new(big.Int).Lsh(big.NewInt(index), uint(bits)-uint(newBits))
	start := fromInt(new(big.Int).Add(toInt(p.Addr()), offset), bits)
	return netip.PrefixFrom(start, int(newBits)).String(), nil
}

func cidrHost(name string, args []any) (any, error) {
	if err := count(name, args, 2, 2); err != nil {
		return nil, err
	}
	p, err := network(name, args)
	if err != nil {
		return nil, err
	}
	index, err := intArg(name, args, 1)
	if err != nil {
		return nil, err
	}
	// Hosts count from the address after the network's; an IPv4 range's last is its broadcast.
	bits := addressBits(p)
	hostBits := uint(bits - p.Bits())
	usable := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), hostBits), big.NewInt(1))
	if p.Addr().Is4() {
		usable.Sub(usable, big.NewInt(1))
	}
	if index < 0 || big.NewInt(index).Cmp(usable) >= 0 {
		return nil, fmt.Errorf("The template language function '%s' expects its host index to be between 0 and %s, but it is %d.", name, new(big.Int).Sub(usable, big.NewInt(1)), index)
	}
	host := new(big.Int).Add(toInt(p.Addr()), big.NewInt(index+1))
	return fromInt(host, bits).String(), nil
}
