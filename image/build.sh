#!/usr/bin/env bash
# `npm run image:build`: builds ./Dockerfile without a Docker daemon or a container registry, with Debian's
# buildah on the runc runtime (crun fails on this kernel's hybrid cgroups) and the host's network, on the base
# image/build-base.sh makes from Debian packages. The result lands in the local containers storage (shared with
# podman) under the image reference dist/ uses. Prints the image size.
#   IMAGE=<reference>  tag to build (default: the reference dist/ uses, from the package version)
#   CA_BUNDLE=<file>   CA bundle for TLS inside the build (default: the host's, which trusts this machine's proxy)
#   IMAGE_FROM_COMMIT=<rev>  build what <rev> holds instead of the working tree (a clean export of that commit)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
log() { printf '[image:build] %s\n' "$*" >&2; }

for tool in buildah runc; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    log "$tool is missing: apt-get update && apt-get install -y buildah runc mmdebstrap podman"
    exit 2
  fi
done

started=$SECONDS
base="$(bash image/build-base.sh)"
image="${IMAGE:-$(node_modules/.bin/tsx image/image-reference.ts)}"
version="$(node -p "require('./package.json').version")"
ca_bundle="${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}"
context="$root"
if [[ -n "${IMAGE_FROM_COMMIT:-}" ]]; then
  context="$(mktemp -d)"
  trap 'rm -rf "$context"' EXIT
  git archive "$IMAGE_FROM_COMMIT" | tar -x -C "$context"
  revision="$(git rev-parse "$IMAGE_FROM_COMMIT")"
  created="$(git log -1 --format=%cI "$IMAGE_FROM_COMMIT")"
else
  revision="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
  # The labels must not claim a commit the image does not hold.
  if [[ -n "$(git status --porcelain -- Dockerfile package.json package-lock.json tsconfig.json tsconfig.build.json src imports operator bin 2>/dev/null)" ]]; then
    revision="$revision-dirty"
  fi
  # The commit time, not the build time, so rebuilding a commit gives the same labels.
  created="$(git log -1 --format=%cI 2>/dev/null || echo 1970-01-01T00:00:00Z)"
fi

log "building $image on $base"
buildah bud \
  --runtime runc --network host --pull=never --layers --quiet \
  --secret "id=ca-bundle,src=$ca_bundle" \
  --build-arg "BASE_IMAGE=$base" \
  --build-arg "VERSION=$version" \
  --build-arg "REVISION=$revision" \
  --build-arg "CREATED=$created" \
  --tag "$image" \
  --file "$context/Dockerfile" "$context" >/dev/null

size_bytes="$(buildah inspect --type image --format '{{.ImageSize}}' "$image" 2>/dev/null || true)"
if ! [[ "$size_bytes" =~ ^[0-9]+$ ]]; then
  size_bytes="$(podman image inspect --format '{{.Size}}' "$image")"
fi
log "built $image in $((SECONDS - started)) s"
printf 'image %s: %s MB (%s bytes, uncompressed)\n' "$image" "$((size_bytes / 1000000))" "$size_bytes"
