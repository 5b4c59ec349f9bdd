import { FieldError, fieldErrors } from './field-error';

/**
 * The apiserver's own checks of a custom resource's metadata (ValidateObjectMetaAccessor with NameIsDNSSubdomain,
 * k8s.io/apimachinery/pkg/api/validation): the CRD schema cannot loosen them and usually does not repeat them.
 * A missing namespace is not an error here: a manifest without one is applied to the current namespace.
 */

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const LABEL_MESSAGE = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";

const regexError = (message: string, pattern: string, example: string) => `${message} (e.g. '${example}', regex used for validation is '${pattern}')`;

/** IsDNS1123Subdomain; for a generateName prefix after maskTrailingDash, which replaces its last two characters by `a`. */
function subdomainProblems(value: string, prefix: boolean): string[] {
  const checked = prefix && value.length > 1 && value.endsWith('-') ? `${value.slice(0, -2)}a` : value;
  const problems: string[] = [];
  if (checked.length > 253) problems.push('must be no more than 253 characters');
  if (!new RegExp(`^${DNS1123_SUBDOMAIN}$`).test(checked)) problems.push(regexError(SUBDOMAIN_MESSAGE, DNS1123_SUBDOMAIN, 'example.com'));
  return problems;
}

function labelProblems(value: string): string[] {
  const problems: string[] = [];
  if (value.length > 63) problems.push('must be no more than 63 characters');
  if (!new RegExp(`^${DNS1123_LABEL}$`).test(value)) problems.push(regexError(LABEL_MESSAGE, DNS1123_LABEL, 'my-name'));
  return problems;
}

export function objectMetaErrors(object: unknown): FieldError[] {
  const metadata = ((object ?? {}) as { metadata?: Record<string, unknown> }).metadata ?? {};
  const errors: FieldError[] = [];
  const { name, generateName, namespace } = metadata;
  if (typeof generateName === 'string' && generateName !== '') {
    for (const problem of subdomainProblems(generateName, true)) errors.push(fieldErrors.invalid('metadata.generateName', generateName, problem));
  }
  if (typeof name !== 'string' || name === '') {
    if (typeof generateName !== 'string' || generateName === '') errors.push(fieldErrors.required('metadata.name', 'name or generateName is required'));
  } else {
    for (const problem of subdomainProblems(name, false)) errors.push(fieldErrors.invalid('metadata.name', name, problem));
  }
  if (typeof namespace === 'string' && namespace !== '') {
    for (const problem of labelProblems(namespace)) errors.push(fieldErrors.invalid('metadata.namespace', namespace, problem));
  }
  return errors;
}
