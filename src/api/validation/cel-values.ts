import { CelInput } from '@bufbuild/cel';

/**
 * JSON values as CEL sees them in a CRD rule (k8s.io/apiserver/pkg/cel/common/values.go): the schema, not the
 * JSON, decides the CEL type, so `type: integer` is a CEL int (a bigint here, so `self.replicas < 3` compares
 * ints), `type: number` a double, objects with `properties` are objects whose field names are escaped, and
 * `additionalProperties` objects are maps keyed by the raw strings.
 */

type Schema = Record<string, unknown>;

/**
 * String formats the apiserver turns into other CEL types (timestamp, duration, bytes). They are left as strings
 * here, so a rule must not read them: {@link assertCelConvertible} says so at compile time.
 */
const RETYPED_STRING_FORMATS = new Set(['date', 'date-time', 'duration', 'byte']);

/** CEL reserved words, which Kubernetes escapes as `__word__` when they name a property. */
const RESERVED_WORDS = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let',
  'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

/**
 * A property name as a CEL field name (k8s.io/apiserver/pkg/cel/escaping.go), or undefined when Kubernetes
 * exposes no CEL field for it.
 */
export function escapeCelPropertyName(name: string): string | undefined {
  if (!/^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/.test(name)) return undefined;
  if (RESERVED_WORDS.has(name)) return `__${name}__`;
  return name.replace(/__|[.\-/]/g, (match) => ({ __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' })[match]!);
}

/** Throws when a rule at `path` could read a value this module would give the wrong CEL type. */
export function assertCelConvertible(schema: Schema, path: string): void {
  if (typeof schema.format === 'string' && RETYPED_STRING_FORMATS.has(schema.format)) {
    throw new Error(`a CEL rule reads ${path} (format ${schema.format}), which the offline CEL conversion keeps as a string`);
  }
  for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) assertCelConvertible(child, `${path}.${name}`);
  if (schema.items && typeof schema.items === 'object') assertCelConvertible(schema.items as Schema, `${path}[*]`);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    assertCelConvertible(schema.additionalProperties as Schema, `${path}[*]`);
  }
}

/** A JSON value with no schema (under `x-kubernetes-preserve-unknown-fields`): CEL's dynamic conversion. */
function untypedToCel(value: unknown): CelInput {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(untypedToCel);
  if (value && typeof value === 'object') return new Map(Object.entries(value).map(([key, item]) => [key, untypedToCel(item)]));
  return value as CelInput;
}

/** Converts a value validated against `schema` into the CEL value a rule on that schema sees as `self`. */
export function toCelValue(schema: Schema, value: unknown): CelInput {
  if (value === null || value === undefined) return null;
  if (schema['x-kubernetes-int-or-string'] === true) return typeof value === 'number' ? BigInt(Math.trunc(value)) : (value as CelInput);
  switch (schema.type) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : (value as CelInput);
    case 'array':
      return Array.isArray(value) && schema.items ? value.map((item) => toCelValue(schema.items as Schema, item)) : untypedToCel(value);
    case 'object':
      return objectToCel(schema, value);
    default:
      return value as CelInput;
  }
}

function objectToCel(schema: Schema, value: unknown): CelInput {
  if (typeof value !== 'object' || Array.isArray(value)) return untypedToCel(value);
  const entries = Object.entries(value as Record<string, unknown>);
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (properties) {
    const fields = new Map<string, CelInput>();
    for (const [name, item] of entries) {
      const fieldName = escapeCelPropertyName(name);
      if (fieldName !== undefined && properties[name]) fields.set(fieldName, toCelValue(properties[name], item));
    }
    return fields;
  }
  const valueSchema = schema.additionalProperties;
  if (valueSchema && typeof valueSchema === 'object') {
    return new Map(entries.map(([key, item]) => [key, toCelValue(valueSchema as Schema, item)]));
  }
  return untypedToCel(value);
}
