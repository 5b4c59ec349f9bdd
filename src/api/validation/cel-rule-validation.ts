import { CelInput, isCelError } from '@bufbuild/cel';
import { CelRule } from '../schema-helpers';
import { assertCelConvertible, toCelValue } from './cel-values';
import { FieldError, ROOT_FIELD, fieldErrors } from './field-error';
import { CompiledCelExpression, compileCelExpression } from './kubernetes-cel-environment';

/**
 * The `x-kubernetes-validations` rules of a CRD schema, evaluated the way the kube-apiserver evaluates them
 * (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go): on the defaulted object, at every node
 * whose value is present and not null; transition rules (those reading `oldSelf`) only on update and only where
 * the old object has a correlated value (object properties and map keys; items of atomic lists never correlate);
 * failures worded with the rule's `message`, `messageExpression` or `failed rule: <rule>`, and its `reason`.
 *
 * Not modelled: the cost budget (the apiserver rejects a CRD whose rules may exceed it, so admitted rules fit),
 * correlation of `x-kubernetes-list-type: map` items, `optionalOldSelf`, and ratcheting of errors on values an
 * update leaves unchanged (the old object is taken to be valid).
 */

type Schema = Record<string, unknown>;

interface CompiledRule {
  readonly rule: CelRule;
  readonly program: CompiledCelExpression;
  readonly messageProgram?: CompiledCelExpression;
}

/** The schema tree pruned to the nodes that hold rules or lead to them. */
export interface CelRuleTree {
  readonly schema: Schema;
  readonly rules: readonly CompiledRule[];
  readonly properties: ReadonlyMap<string, CelRuleTree>;
  readonly items?: CelRuleTree;
  readonly additionalProperties?: CelRuleTree;
}

/**
 * What a rule on the resource root sees: apiVersion, kind, and of metadata only name and generateName
 * (model.WithTypeAndObjectMeta).
 */
function rootSchemaAsCelSees(schema: Schema): Schema {
  const properties = { ...(schema.properties as Record<string, Schema> | undefined) };
  properties.apiVersion = { type: 'string' };
  properties.kind = { type: 'string' };
  properties.metadata = { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } };
  return { ...schema, properties };
}

function compileNode(schema: Schema, path: string): CelRuleTree | undefined {
  const rules = ((schema['x-kubernetes-validations'] ?? []) as CelRule[]).map((rule): CompiledRule => {
    assertCelConvertible(schema, path);
    return {
      rule,
      program: compileCelExpression(rule.rule),
      messageProgram: rule.messageExpression ? compileCelExpression(rule.messageExpression) : undefined,
    };
  });
  const properties = new Map<string, CelRuleTree>();
  for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    const compiled = compileNode(child, childPath(path, name));
    if (compiled) properties.set(name, compiled);
  }
  const items = schema.items && typeof schema.items === 'object' ? compileNode(schema.items as Schema, `${path}[*]`) : undefined;
  const additionalProperties =
    schema.additionalProperties && typeof schema.additionalProperties === 'object'
      ? compileNode(schema.additionalProperties as Schema, `${path}[*]`)
      : undefined;
  if (rules.length === 0 && properties.size === 0 && !items && !additionalProperties) return undefined;
  return { schema, rules, properties, items, additionalProperties };
}

/** Compiles every rule of a CRD's `openAPIV3Schema` once; throws if a rule cannot be evaluated offline. */
export function compileCelRules(openApiSchema: Schema): CelRuleTree | undefined {
  const tree = compileNode(openApiSchema, ROOT_FIELD);
  return tree && tree.rules.length > 0 ? { ...tree, schema: rootSchemaAsCelSees(openApiSchema) } : tree;
}

/** field.Path's notation: `.name` for properties, `[key]` for map keys and list indexes; nothing before the root. */
function childPath(path: string, name: string): string {
  return path === ROOT_FIELD ? name : `${path}.${name}`;
}
const keyPath = (path: string, key: string | number) => `${path === ROOT_FIELD ? '' : path}[${key}]`;

function ruleErrorString(rule: CelRule): string {
  return rule.message ? rule.message.trim() : rule.rule.trim();
}

function failureMessage(compiled: CompiledRule, bindings: { self: CelInput; oldSelf?: CelInput }): string {
  if (compiled.messageProgram) {
    const evaluated = compiled.messageProgram.evaluate(bindings);
    // The apiserver falls back to `message` when messageExpression fails or gives an empty or multi-line string.
    if (typeof evaluated === 'string' && evaluated.trim() !== '' && !evaluated.includes('\n')) return evaluated.trim();
  }
  return compiled.rule.message ? compiled.rule.message.trim() : `failed rule: ${ruleErrorString(compiled.rule)}`;
}

function failure(compiled: CompiledRule, path: string, schemaType: string, message: string): FieldError {
  // The apiserver appends a rule's fieldPath as one more path element (field.Path.Child).
  const field = compiled.rule.fieldPath ? childPath(path, compiled.rule.fieldPath.replace(/^\./, '')) : path;
  switch (compiled.rule.reason) {
    case 'FieldValueForbidden':
      return fieldErrors.forbidden(field, message);
    case 'FieldValueRequired':
      return fieldErrors.required(field, message);
    case 'FieldValueDuplicate':
      return fieldErrors.duplicate(field, schemaType);
    default:
      return fieldErrors.invalid(field, schemaType, message);
  }
}

function evaluateNode(tree: CelRuleTree, value: unknown, oldValue: unknown, path: string, errors: FieldError[]): void {
  if (value === undefined || value === null) return;
  const schemaType = String(tree.schema.type ?? '');
  for (const compiled of tree.rules) {
    if (compiled.program.readsOldSelf && (oldValue === undefined || oldValue === null)) continue;
    const bindings = {
      self: toCelValue(tree.schema, value),
      ...(oldValue === undefined || oldValue === null ? {} : { oldSelf: toCelValue(tree.schema, oldValue) }),
    };
    const result = compiled.program.evaluate(bindings);
    if (isCelError(result)) {
      errors.push(fieldErrors.invalid(path, schemaType, `${result.message} evaluating rule: ${ruleErrorString(compiled.rule)}`));
    } else if (result !== true) {
      errors.push(failure(compiled, path, schemaType, failureMessage(compiled, bindings)));
    }
  }
  const old = (key: string | number) => (oldValue && typeof oldValue === 'object' ? (oldValue as Record<string, unknown>)[key] : undefined);
  if (Array.isArray(value)) {
    // Items are never correlated with the old list here (see the module comment), so their transition rules do not run.
    if (tree.items) value.forEach((item, index) => evaluateNode(tree.items!, item, undefined, keyPath(path, index), errors));
    return;
  }
  if (typeof value !== 'object') return;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const property = tree.properties.get(key);
    if (property) evaluateNode(property, item, old(key), childPath(path, key), errors);
    else if (tree.additionalProperties) evaluateNode(tree.additionalProperties, item, old(key), keyPath(path, key), errors);
  }
}

/**
 * Evaluates the rules on a defaulted object; with `oldObject` (also defaulted), as an update, which adds the
 * transition rules.
 */
export function celRuleErrors(tree: CelRuleTree | undefined, object: unknown, oldObject?: unknown): FieldError[] {
  const errors: FieldError[] = [];
  if (tree) evaluateNode(tree, object, oldObject, ROOT_FIELD, errors);
  return errors;
}
