import { FieldError, fieldErrors, goFloat } from './field-error';

/**
 * The apiserver's checks of the paths a CRD's scale subresource names (ValidateScaleSpec / ValidateScaleStatus in
 * k8s.io/apiextensions-apiserver/pkg/registry/customresource/validator.go): the replicas paths must hold
 * non-negative int32s and the selector path a string, reported on top of the schema's own errors.
 */

export interface ScaleSubresource {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  readonly labelSelectorPath?: string;
}

const INT32_MAX = 2 ** 31 - 1;

/** Go's `%T` for a value decoded from JSON. */
function goTypeName(value: unknown): string {
  if (value === null) return '<nil>';
  if (Array.isArray(value)) return '[]interface {}';
  switch (typeof value) {
    case 'number':
      return Number.isInteger(value) ? 'int64' : 'float64';
    case 'boolean':
      return 'bool';
    case 'object':
      return 'map[string]interface {}';
    default:
      return typeof value;
  }
}

/** Go's `%v` for a value decoded from JSON (close enough for maps and lists, which print as JSON here). */
function goPlainValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : goFloat(value);
  if (value === null) return '<nil>';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** unstructured.NestedFieldNoCopy: the value at a dotted path, or undefined when some step is missing. */
function nested(object: unknown, path: string): { found: boolean; value?: unknown } {
  let node = object;
  for (const step of path.replace(/^\./, '').split('.')) {
    if (!node || typeof node !== 'object' || Array.isArray(node) || !(step in node)) return { found: false };
    node = (node as Record<string, unknown>)[step];
  }
  return { found: true, value: node };
}

function replicasErrors(object: unknown, path: string): FieldError[] {
  const { found, value } = nested(object, path);
  if (!found) return [];
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    return [fieldErrors.invalid(path, 0, `${path} accessor error: ${goPlainValue(value)} is of the type ${goTypeName(value)}, expected int64`)];
  }
  if (value < 0) return [fieldErrors.invalid(path, value, 'should be a non-negative integer')];
  if (value > INT32_MAX) return [fieldErrors.invalid(path, value, `should be less than or equal to ${INT32_MAX}`)];
  return [];
}

export function scaleSubresourceErrors(object: unknown, scale: ScaleSubresource): FieldError[] {
  const errors = [...replicasErrors(object, scale.specReplicasPath), ...replicasErrors(object, scale.statusReplicasPath)];
  if (scale.labelSelectorPath) {
    const { found, value } = nested(object, scale.labelSelectorPath);
    if (found && typeof value !== 'string') {
      errors.push(fieldErrors.invalid(scale.labelSelectorPath, '', `${scale.labelSelectorPath} accessor error: ${goPlainValue(value)} is of the type ${goTypeName(value)}, expected string`));
    }
  }
  return errors;
}
