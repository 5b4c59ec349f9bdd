#!/usr/bin/env bash
# Builds the install-path checkers from Go modules into a cache outside the repository, keyed by version: helm
# (lint and template of dist/helm/redkite), kustomize (build of dist/ with an image override) and the Argo CD
# health-check runner (test/install/go/argocd-lua, gopher-lua as in Argo CD). Already-built tools are skipped.
# Prints `<name>=<path>` lines on stdout; progress goes to stderr.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${REDKITE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/redkite}/bin"

log() { printf '[install:tools] %s\n' "$*" >&2; }

# required_version <module dir> <module path>: the version the wrapper module's go.mod pins.
required_version() {
  awk -v module="$2" '$1 == "require" && $2 == module { print $3 } $1 == module { print $2 }' "$here/go/$1/go.mod" | head -1
}

# build <name> <module dir> <package> <output dir> <ldflags>
build() {
  local name="$1" module="$2" package="$3" output_dir="$4" ldflags="$5"
  local output="$output_dir/$name"
  if [[ -x "$output" ]]; then
    log "$name: cached at $output"
    printf '%s=%s\n' "$name" "$output"
    return
  fi
  if ! command -v go >/dev/null 2>&1; then
    log "Go is not installed and $name is not cached at $output: install Go >= 1.24 (https://go.dev/dl/)"
    exit 2
  fi
  mkdir -p "$output_dir"
  log "$name: building $package (first build takes a few minutes; later runs use the cache)"
  local started=$SECONDS
  ( cd "$here/go/$module" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$output.partial" "$package" )
  mv "$output.partial" "$output"
  log "$name: built in $((SECONDS - started)) s -> $output"
  printf '%s=%s\n' "$name" "$output"
}

helm_version="$(required_version helm helm.sh/helm/v3)"
kustomize_version="$(required_version kustomize sigs.k8s.io/kustomize/kustomize/v5)"
lua_version="$(required_version argocd-lua github.com/yuin/gopher-lua)"
# The runner is our own code: its cache key includes its source.
runner_hash="$(cat "$here/go/argocd-lua/main.go" "$here/go/argocd-lua/go.mod" "$here/go/argocd-lua/go.sum" | sha256sum | cut -c1-12)"

# As helm's Makefile does: the Kubernetes version helm template and lint assume follows the client-go it links
# (without it they assume v1.20, and the chart's kubeVersion constraint fails).
helm_kubernetes_ldflags() {
  local client_go major minor
  client_go="$(cd "$here/go/helm" && go list -m -f '{{.Version}}' k8s.io/client-go)"
  client_go="${client_go#v}"
  major="$(( ${client_go%%.*} + 1 ))"
  minor="$(cut -d. -f2 <<<"$client_go")"
  for package in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
    printf ' -X %s.k8sVersionMajor=%s -X %s.k8sVersionMinor=%s' "$package" "$major" "$package" "$minor"
  done
}
helm_dir="$cache_root/helm-$helm_version"
helm_ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$helm_version -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
if [[ ! -x "$helm_dir/helm" ]]; then helm_ldflags="$helm_ldflags$(helm_kubernetes_ldflags)"; fi
build helm helm helm.sh/helm/v3/cmd/helm "$helm_dir" "$helm_ldflags"
build kustomize kustomize sigs.k8s.io/kustomize/kustomize/v5 "$cache_root/kustomize-$kustomize_version" \
  "-s -w -X sigs.k8s.io/kustomize/api/provenance.version=$kustomize_version"
build argocd-lua-health argocd-lua . "$cache_root/argocd-lua-health-gopher-lua-$lua_version-$runner_hash" "-s -w"
