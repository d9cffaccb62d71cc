#!/usr/bin/env bash
# Builds azk's release archives into dist/: static binaries (CGO_ENABLED=0)
# stamped with VERSION, one archive per target named as the action's install
# step looks for them (azk_<version>_<os>_<arch>.tar.gz, .zip for Windows),
# and checksums.txt in sha256sum's format.
#
#   VERSION=v1.2.3 scripts/release.sh           # every target
#   VERSION=v1.2.3 TARGETS=linux/amd64 scripts/release.sh
set -euo pipefail

: "${VERSION:?set VERSION to the release tag, e.g. v1.2.3}"
targets="${TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}"
root="$(cd "$(dirname "$0")/.." && pwd)"
dist="${DIST:-$root/dist}"

rm -rf "$dist"
mkdir -p "$dist"
cd "$root"
for target in $targets; do
  os="${target%/*}"
  arch="${target#*/}"
  name="azk_${VERSION#v}_${os}_${arch}"
  stage="$dist/$name"
  exe=azk
  [ "$os" = windows ] && exe=azk.exe
  mkdir -p "$stage"
  CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" go build -trimpath \
    -ldflags "-s -w -X main.version=$VERSION" -o "$stage/$exe" ./cmd/azk
  cp README.md "$stage/"
  if [ "$os" = windows ]; then
    (cd "$stage" && zip -qX "../$name.zip" "$exe" README.md)
  else
    tar -C "$stage" --owner=0 --group=0 --numeric-owner -czf "$dist/$name.tar.gz" "$exe" README.md
  fi
  rm -rf "$stage"
done
(cd "$dist" && sha256sum azk_* > checksums.txt)
ls -l "$dist"
