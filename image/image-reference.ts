// Prints the operator image reference dist/ uses (image/build.sh tags the image it builds with it).
import { DEFAULT_OPERATOR_IMAGE } from '../src/operator-bundle/operator-image';

process.stdout.write(`${DEFAULT_OPERATOR_IMAGE}\n`);
