package armfunc

import (
	"math/bits"
	"strings"

	"github.com/google/uuid"
)

// guidNamespace is the namespace ARM's guid() hashes its name in. Microsoft documents guid() as
// RFC 4122 section 4.3 (its GuidUtility: a version-5, SHA-1 UUID of a UTF-8 name) and gives this
// namespace and the '-' join to customers who need the same names outside a deployment.
var guidNamespace = uuid.MustParse("11fb06fb-712d-4ddd-98c7-e71bbd588830")

// GUID is ARM's guid(): a version-5 UUID of the parts joined with '-' (UTF-8) in ARM's namespace.
func GUID(parts ...string) string {
	return nameBased(guidNamespace, strings.Join(parts, "-"))
}

// nameBased is RFC 4122's name-based, SHA-1 (version 5) UUID of a UTF-8 name in a namespace.
func nameBased(namespace uuid.UUID, name string) string {
	return uuid.NewSHA1(namespace, []byte(name)).String()
}

// UniqueString is ARM's uniqueString(): the 64-bit MurmurHash variant ARM uses, of the parts
// joined with '-' (UTF-8), written as 13 characters of lower-case base32.
func UniqueString(parts ...string) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz234567"
	hash := murmur64([]byte(strings.Join(parts, "-")))
	out := make([]byte, 13)
	for i := range out {
		out[i] = alphabet[hash>>59]
		hash <<= 5
	}
	return string(out)
}

// murmur64 is the 64-bit MurmurHash ARM's uniqueString uses: two 32-bit MurmurHash3 lanes fed
// eight bytes at a time, seed 0, mixed into each other at the end.
func murmur64(data []byte) uint64 {
	const (
		c1 = 0x239b961b
		c2 = 0xab0e9789
	)
	le32 := func(b []byte) uint32 {
		var v uint32
		for i := len(b) - 1; i >= 0; i-- {
			v = v<<8 | uint32(b[i])
		}
		return v
	}
	var h1, h2 uint32
	i := 0
	for ; i+8 <= len(data); i += 8 {
		k1 := le32(data[i : i+4])
		k2 := le32(data[i+4 : i+8])

		k1 *= c1
		k1 = bits.RotateLeft32(k1, 15)
		k1 *= c2
		h1 ^= k1
		h1 = bits.RotateLeft32(h1, 19)
		h1 += h2
		h1 = h1*5 + 0x561ccd1b

		k2 *= c2
		k2 = bits.RotateLeft32(k2, 17)
		k2 *= c1
		h2 ^= k2
		h2 = bits.RotateLeft32(h2, 13)
		h2 += h1
		h2 = h2*5 + 0x0bcaa747
	}
	if tail := data[i:]; len(tail) > 0 {
		k1 := le32(tail[:min(4, len(tail))])
		k1 *= c1
		k1 = bits.RotateLeft32(k1, 15)
		k1 *= c2
		h1 ^= k1
		if len(tail) > 4 {
			k2 := le32(tail[4:])
			k2 *= c2
			k2 = bits.RotateLeft32(k2, 17)
			k2 *= c1
			h2 ^= k2
		}
	}
	n := uint32(len(data))
	h1 ^= n
	h2 ^= n
	h1 += h2
	h2 += h1
	h1 = fmix32(h1)
	h2 = fmix32(h2)
	h1 += h2
	h2 += h1
	return uint64(h2)<<32 | uint64(h1)
}

// fmix32 is MurmurHash3's finalisation mix.
func fmix32(h uint32) uint32 {
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}
