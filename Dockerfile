# syntax=docker/dockerfile:1
# The redkite operator image: the compiled controller (lib/) with production dependencies only, run by tini as
# uid 65532. It needs no writable path: run it with a read-only root file system and no /tmp.
#
#   docker build -t ghcr.io/redkite/redkite:$(node -p "require('./package.json').version") .
#
# BASE_IMAGE is any Debian-based image with Node 20 and npm under /usr/local (the public default is what a user
# pulls). `npm run image:build` builds this same file without a daemon or a registry, on a base made from Debian
# packages (image/build-base.sh).
ARG BASE_IMAGE=docker.io/library/node:20-bookworm-slim

FROM ${BASE_IMAGE} AS build
WORKDIR /build
ENV NPM_CONFIG_UPDATE_NOTIFIER=false
# tini-static runs in any runtime base, with or without a libc.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# Behind a TLS-intercepting proxy, pass its CA bundle as a build secret (`--secret id=ca-bundle,src=<file>`);
# Node (and so npm) adds it to its own CA store.
RUN --mount=type=secret,id=ca-bundle,target=/run/secrets/ca-bundle \
    if [ -s /run/secrets/ca-bundle ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca-bundle; fi \
 && npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY imports imports
COPY operator operator
RUN npm run build
# cdk8s, cdk8s-plus-28 and constructs are peer dependencies of the library (a user's app brings its own), so the
# lockfile marks them dev; the controller needs them at run time, at the versions the lockfile pins. They bundle
# their own dependencies. Loading the CLI's module graph proves nothing the controller needs was pruned.
RUN mkdir /tmp/peers \
 && for peer in $(node -p "Object.keys(require('./package.json').peerDependencies || {}).join(' ')"); do cp -a "node_modules/$peer" /tmp/peers/; done \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && cp -a /tmp/peers/. node_modules/ \
 && node -e "require('./lib/operator/cli.js')"

FROM ${BASE_IMAGE}
ARG VERSION=0.0.0-dev
ARG REVISION=unknown
ARG CREATED=1970-01-01T00:00:00Z
LABEL org.opencontainers.image.title="redkite" \
      org.opencontainers.image.description="redkite: the RedisCluster controller" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://github.com/redkite/redkite"
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /usr/bin/tini-static /usr/bin/tini
COPY --from=build /build/package.json ./
COPY --from=build /build/node_modules node_modules
COPY --from=build /build/lib lib
COPY bin bin
USER 65532:65532
# Node as PID 1 would ignore SIGTERM (no default handlers for PID 1): tini forwards it and reaps children.
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/bin/redkite.js"]
CMD ["run"]
