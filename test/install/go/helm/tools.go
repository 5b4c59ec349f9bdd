//go:build tools

// Wrapper module: builds the helm CLI (helm.sh/helm/v3/cmd/helm) at the version go.mod pins, so `helm lint` and
// `helm template` check the chart dist/ holds (test/install/build-tools.sh).
package tools

import _ "helm.sh/helm/v3/cmd/helm"
