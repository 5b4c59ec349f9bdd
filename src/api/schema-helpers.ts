import { Type, TSchema, Static, SchemaOptions } from '@sinclair/typebox';

/**
 * Schema builders that stay inside what a Kubernetes *structural* schema accepts.
 * TypeBox's own `Union(Literal…)` emits `anyOf`/`const`, and `Record` emits `patternProperties`;
 * the apiserver rejects both in a CRD, so these helpers emit `enum` and `additionalProperties` instead
 * while keeping the static TypeScript type exact.
 */

/** A string restricted to `values`, emitted as an OpenAPI `enum`. */
export function StringEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** A map from string keys to values of `valueSchema`, emitted as `additionalProperties`. */
export function StringMap<V extends TSchema>(valueSchema: V, options: SchemaOptions = {}) {
  return Type.Unsafe<Record<string, Static<V>>>({ type: 'object', additionalProperties: valueSchema, ...options });
}

/**
 * The grammar of a Kubernetes resource quantity (k8s.io/apimachinery/pkg/api/resource), as a regular expression.
 * Quantities are kept as strings: the controller passes them through to the StatefulSet unchanged.
 */
export const QUANTITY_PATTERN = '^[+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+|Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E)?$';

/** A Kubernetes resource quantity such as `1Gi`, `500m` or `2`. */
export function Quantity(options: SchemaOptions = {}) {
  return Type.String({ pattern: QUANTITY_PATTERN, maxLength: 32, ...options });
}

/** A DNS-1123 subdomain, the rule for most Kubernetes object names. */
export const DNS_SUBDOMAIN_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';

/** The name of an object in the same namespace. */
export function ObjectName(options: SchemaOptions = {}) {
  return Type.String({ pattern: DNS_SUBDOMAIN_PATTERN, minLength: 1, maxLength: 253, ...options });
}

/** A CEL rule for `x-kubernetes-validations`. */
export interface CelRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  readonly fieldPath?: string;
}

/** Schema options carrying CEL rules, typed so that a misspelt key is a compile error. */
export function celRules(...rules: CelRule[]): { 'x-kubernetes-validations': CelRule[] } {
  return { 'x-kubernetes-validations': rules };
}
