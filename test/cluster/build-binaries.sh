#!/usr/bin/env bash
# Builds the real control-plane binaries (etcd, kube-apiserver, kube-controller-manager) from Go modules
# into a cache outside the repository, keyed by version. Already-built binaries are skipped, and binaries
# supplied through KUBEBUILDER_ASSETS or TEST_ASSET_* are used as they are (the envtest convention).
# Prints the folder holding each binary as `<name>=<path>` lines on stdout; progress goes to stderr.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
kubernetes_version="v1.34.4"
etcd_version="v3.6.16"
cache_root="${REDKITE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/redkite}/bin"

log() { printf '[cluster:build] %s\n' "$*" >&2; }

require_go() {
  if ! command -v go >/dev/null 2>&1; then
    log "Go is not installed and $1 is neither cached nor supplied."
    log "Install Go >= 1.24 (https://go.dev/dl/) or point KUBEBUILDER_ASSETS at a folder holding"
    log "etcd, kube-apiserver and kube-controller-manager (or set TEST_ASSET_ETCD, TEST_ASSET_KUBE_APISERVER,"
    log "TEST_ASSET_KUBE_CONTROLLER_MANAGER to the binaries)."
    exit 2
  fi
}

# supplied_binary <name> <TEST_ASSET variable>: prints the path of a binary the user supplied, if any.
supplied_binary() {
  local name="$1" variable="$2"
  local explicit="${!variable:-}"
  if [[ -n "$explicit" ]]; then
    [[ -x "$explicit" ]] || { log "$variable=$explicit is not an executable file"; exit 2; }
    printf '%s' "$explicit"; return
  fi
  if [[ -n "${KUBEBUILDER_ASSETS:-}" && -x "${KUBEBUILDER_ASSETS}/$name" ]]; then
    printf '%s' "${KUBEBUILDER_ASSETS}/$name"
  fi
}

# build <name> <module dir> <package> <output dir> <ldflags>
build() {
  local name="$1" module="$2" package="$3" output_dir="$4" ldflags="$5"
  local output="$output_dir/$name"
  if [[ -x "$output" ]]; then
    log "$name: cached at $output"
    return
  fi
  require_go "$name"
  mkdir -p "$output_dir"
  log "$name: building $package (first build takes several minutes; later runs use the cache)"
  local started=$SECONDS
  ( cd "$here/go/$module" && CGO_ENABLED=0 go build -trimpath -pgo=off -ldflags "$ldflags" -o "$output.partial" "$package" )
  mv "$output.partial" "$output"
  log "$name: built in $((SECONDS - started)) s -> $output"
}

main() {
  local kube_dir="$cache_root/kubernetes-$kubernetes_version"
  local etcd_dir="$cache_root/etcd-$etcd_version"
  local minor="${kubernetes_version#v1.}"; minor="${minor%%.*}"
  local kube_ldflags="-s -w \
    -X k8s.io/component-base/version.gitVersion=$kubernetes_version \
    -X k8s.io/component-base/version.gitMajor=1 \
    -X k8s.io/component-base/version.gitMinor=$minor \
    -X k8s.io/component-base/version.gitTreeState=clean \
    -X k8s.io/component-base/version.buildDate=1970-01-01T00:00:00Z \
    -X k8s.io/client-go/pkg/version.gitVersion=$kubernetes_version"

  local etcd kube_apiserver kube_controller_manager
  etcd="$(supplied_binary etcd TEST_ASSET_ETCD)"
  if [[ -z "$etcd" ]]; then
    build etcd etcd go.etcd.io/etcd/server/v3 "$etcd_dir" "-s -w"
    etcd="$etcd_dir/etcd"
  fi
  kube_apiserver="$(supplied_binary kube-apiserver TEST_ASSET_KUBE_APISERVER)"
  if [[ -z "$kube_apiserver" ]]; then
    build kube-apiserver kubernetes k8s.io/kubernetes/cmd/kube-apiserver "$kube_dir" "$kube_ldflags"
    kube_apiserver="$kube_dir/kube-apiserver"
  fi
  kube_controller_manager="$(supplied_binary kube-controller-manager TEST_ASSET_KUBE_CONTROLLER_MANAGER)"
  if [[ -z "$kube_controller_manager" ]]; then
    build kube-controller-manager kubernetes k8s.io/kubernetes/cmd/kube-controller-manager "$kube_dir" "$kube_ldflags"
    kube_controller_manager="$kube_dir/kube-controller-manager"
  fi
  printf 'etcd=%s\nkube-apiserver=%s\nkube-controller-manager=%s\n' "$etcd" "$kube_apiserver" "$kube_controller_manager"
}

main "$@"
