import { PACKAGE_VERSION } from './package-version';

/** Where the operator image is published; the tag is the package version, so dist/ and the npm package agree. */
export const OPERATOR_IMAGE_REPOSITORY = 'ghcr.io/redkite/redkite';
export const DEFAULT_OPERATOR_IMAGE = `${OPERATOR_IMAGE_REPOSITORY}:${PACKAGE_VERSION}`;

/** Environment variable that overrides the operator image when this repository's `npm run synth` runs. */
export const OPERATOR_IMAGE_ENVIRONMENT_VARIABLE = 'REDKITE_OPERATOR_IMAGE';

// registry[:port]/path[:tag][@digest], as the container runtime parses a reference (distribution/reference).
const IMAGE_REFERENCE = /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

/** Throws when `image` is not a reference a kubelet can pull, naming where it came from. */
export function validateImageReference(image: string, source: string): string {
  if (!IMAGE_REFERENCE.test(image)) {
    throw new Error(`${source}: "${image}" is not a container image reference (expected e.g. ${DEFAULT_OPERATOR_IMAGE})`);
  }
  return image;
}
