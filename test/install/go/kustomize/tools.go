//go:build tools

// Wrapper module: builds the kustomize CLI (sigs.k8s.io/kustomize/kustomize/v5) at the version go.mod pins, the
// same kustomize `kubectl kustomize` embeds (test/install/build-tools.sh).
package tools

import _ "sigs.k8s.io/kustomize/kustomize/v5"
