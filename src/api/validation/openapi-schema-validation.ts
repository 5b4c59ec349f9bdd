import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { FieldError, fieldErrors, goFloat } from './field-error';

/**
 * The OpenAPI part of a CRD's validation, as the apiserver runs it: defaults applied first, then types, bounds,
 * patterns and enums, with unknown fields rejected as under strict field validation (kubectl's and Argo CD's
 * default). ajv does the checking; this module only reshapes a CRD schema for it and words its errors as
 * kube-openapi does (k8s.io/kube-openapi/pkg/validation/errors, converted by apiextensions' ValidateCustomResource).
 */

type Schema = Record<string, unknown>;

/** Extension keywords the apiserver understands; ajv must know them to compile in strict mode. */
const KUBERNETES_KEYWORDS = [
  'x-kubernetes-validations',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
];

/**
 * Marks every object that declares `properties` as closed: under strict field validation an unknown field is an
 * error instead of being pruned. `metadata` stays open: the apiserver validates ObjectMeta itself.
 */
function closeObjects(schema: Schema, isRoot = true): Schema {
  const copy: Schema = { ...schema };
  if (copy.properties && typeof copy.properties === 'object') {
    copy.properties = Object.fromEntries(
      Object.entries(copy.properties as Record<string, Schema>).map(([key, value]) => [
        key,
        isRoot && key === 'metadata' ? { ...value, additionalProperties: true } : closeObjects(value, false),
      ]),
    );
    if (copy.additionalProperties === undefined && copy['x-kubernetes-preserve-unknown-fields'] !== true) copy.additionalProperties = false;
  }
  if (copy.items && typeof copy.items === 'object') copy.items = closeObjects(copy.items as Schema, false);
  if (copy.additionalProperties && typeof copy.additionalProperties === 'object') {
    copy.additionalProperties = closeObjects(copy.additionalProperties as Schema, false);
  }
  return copy;
}

/** Compiles a CRD's `openAPIV3Schema` into an ajv validator that applies defaults like the apiserver. */
export function compileOpenApiSchema(openApiSchema: Schema): ValidateFunction {
  // verbose: errors carry the offending value, which the apiserver's wording includes.
  const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true, verbose: true });
  addFormats(ajv);
  ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) });
  ajv.addFormat('int32', { type: 'number', validate: (value: number) => Number.isInteger(value) && Math.abs(value) <= 2 ** 31 });
  for (const keyword of KUBERNETES_KEYWORDS) ajv.addKeyword(keyword);
  return ajv.compile(closeObjects(openApiSchema));
}

/**
 * The apiserver's notation for a JSON pointer into `root`: `spec.scheduling.tolerations[0].operator`. kube-openapi
 * joins map keys with dots (`spec.config.maxmemory`), so only array indexes get brackets.
 */
function fieldPath(root: unknown, instancePath: string): string {
  let node = root;
  let path = '';
  for (const escaped of instancePath.split('/').slice(1)) {
    const segment = escaped.replace(/~1/g, '/').replace(/~0/g, '~');
    path += Array.isArray(node) ? `[${segment}]` : `${path ? '.' : ''}${segment}`;
    node = (node as Record<string, unknown> | undefined)?.[segment];
  }
  return path;
}

/** kube-openapi's name for a value's JSON type (validate/type.go): integers and numbers apart. */
function jsonTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

const joinPath = (base: string, key: string) => (base ? `${base}.${key}` : key);

function toFieldError(root: unknown, error: ErrorObject): FieldError {
  const path = fieldPath(root, error.instancePath);
  const inBody = `${path} in body`;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      return fieldErrors.typeInvalid(path, jsonTypeName(error.data), `${inBody} must be of type ${String(params.type)}: ${JSON.stringify(jsonTypeName(error.data))}`);
    case 'format':
      return fieldErrors.typeInvalid(path, error.data, `${inBody} must be of type ${String(params.format)}: ${JSON.stringify(error.data)}`);
    case 'enum':
      return fieldErrors.notSupported(path, error.data, params.allowedValues as unknown[]);
    case 'maxLength':
      return fieldErrors.tooLong(path, Number(params.limit));
    case 'maxItems':
      return fieldErrors.tooMany(path, (error.data as unknown[]).length, Number(params.limit));
    case 'maxProperties':
      return fieldErrors.tooMany(path, Object.keys(error.data as object).length, Number(params.limit));
    case 'required':
      return fieldErrors.required(joinPath(path, String(params.missingProperty)), '');
    case 'additionalProperties':
      return fieldErrors.unknown(joinPath(path, String(params.additionalProperty)));
    default:
      return fieldErrors.invalid(path, error.data, `${inBody} ${openApiDetail(error, params)}`);
  }
}

/** The rest of kube-openapi's messages (errors/schema.go), after `<field> in body `. */
function openApiDetail(error: ErrorObject, params: Record<string, unknown>): string {
  const limit = params.limit as number;
  switch (error.keyword) {
    case 'minimum':
      return `should be greater than or equal to ${formatLimit(limit)}`;
    case 'exclusiveMinimum':
      return `should be greater than ${formatLimit(limit)}`;
    case 'maximum':
      return `should be less than or equal to ${formatLimit(limit)}`;
    case 'exclusiveMaximum':
      return `should be less than ${formatLimit(limit)}`;
    case 'multipleOf':
      return `should be a multiple of ${formatLimit(params.multipleOf as number)}`;
    case 'pattern':
      return `should match '${String(params.pattern)}'`;
    case 'minLength':
      return `should be at least ${limit} chars long`;
    case 'minItems':
      return `should have at least ${limit} items`;
    case 'minProperties':
      return `should have at least ${limit} properties`;
    case 'uniqueItems':
      return "shouldn't contain duplicates";
    default:
      return error.message ?? `failed ${error.keyword}`;
  }
}

/** kube-openapi keeps limits as float64 and prints them with Go's `%v`. */
const formatLimit = goFloat;

/**
 * Validates `object` (which is defaulted in place, as the apiserver defaults before it validates) and returns the
 * apiserver-worded errors.
 */
export function openApiErrors(validate: ValidateFunction, object: unknown): FieldError[] {
  if (validate(object)) return [];
  return (validate.errors ?? []).map((error) => toFieldError(object, error));
}
