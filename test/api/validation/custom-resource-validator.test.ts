import { CustomResourceValidator, UnsupportedCelFunctionError } from '../../../src/api';
import { fieldErrorText } from '../../../src/api/validation/field-error';
import { CelRule } from '../../../src/api/schema-helpers';

type Schema = Record<string, unknown>;

/** A CRD schema whose `spec` has the given properties and rules. */
function crdSchema(specProperties: Record<string, Schema>, specRules: CelRule[] = [], rootRules: CelRule[] = []): Schema {
  return {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: { type: 'object', properties: specProperties, ...(specRules.length ? { 'x-kubernetes-validations': specRules } : {}) },
    },
    ...(rootRules.length ? { 'x-kubernetes-validations': rootRules } : {}),
  };
}

const object = (spec: Record<string, unknown>, metadata: Record<string, unknown> = { name: 'sample' }) => ({ apiVersion: 'x.io/v1', kind: 'X', metadata, spec });

function errorsOf(schema: Schema, spec: Record<string, unknown>, oldSpec?: Record<string, unknown>): string[] {
  return new CustomResourceValidator({ openApiSchema: schema }).validate(object(spec), oldSpec && object(oldSpec)).map(fieldErrorText);
}

describe('CustomResourceValidator: CEL rules as the apiserver evaluates them', () => {
  it('gives integer fields the CEL int type and number fields the double type', () => {
    const schema = crdSchema({ count: { type: 'integer' }, ratio: { type: 'number' } }, [
      { rule: 'type(self.count) == int && type(self.ratio) == double', message: 'wrong CEL types' },
    ]);
    expect(errorsOf(schema, { count: 2, ratio: 1 })).toEqual([]);
  });

  it('applies schema defaults before the rules, as the apiserver does', () => {
    const schema = crdSchema({ size: { type: 'integer', default: 7 } }, [{ rule: 'self.size < 5', message: 'too big' }]);
    expect(errorsOf(schema, {})).toEqual(['spec: Invalid value: "object": too big']);
  });

  it('reports a failed rule without a message as "failed rule: <rule>"', () => {
    expect(errorsOf(crdSchema({ a: { type: 'string' } }, [{ rule: "self.a != 'x'" }]), { a: 'x' })).toEqual([
      `spec: Invalid value: "object": failed rule: self.a != 'x'`,
    ]);
  });

  it('uses messageExpression, and message when messageExpression gives no usable string', () => {
    const schema = crdSchema({ n: { type: 'integer' } }, [
      { rule: 'self.n < 3', messageExpression: "'n is ' + string(self.n)", message: 'n too big' },
      { rule: 'self.n < 2', messageExpression: "''", message: 'fallback used' },
    ]);
    expect(errorsOf(schema, { n: 4 })).toEqual(['spec: Invalid value: "object": n is 4', 'spec: Invalid value: "object": fallback used']);
  });

  it('words errors by the rule reason and appends its fieldPath', () => {
    const schema = crdSchema({ a: { type: 'string' } }, [
      { rule: 'false', message: 'no', reason: 'FieldValueForbidden', fieldPath: '.a' },
      { rule: 'false', message: 'needed', reason: 'FieldValueRequired' },
      { rule: 'false', reason: 'FieldValueDuplicate' },
    ]);
    expect(errorsOf(schema, { a: 'x' })).toEqual(['spec.a: Forbidden: no', 'spec: Required value: needed', 'spec: Duplicate value: "object"']);
  });

  it('reports rules on map values at spec.map[key]', () => {
    const schema = crdSchema({ labels: { type: 'object', additionalProperties: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.size() < 4', message: 'short values only' }] } } });
    expect(errorsOf(schema, { labels: { ok: 'abc', 'app.io/name': 'toolong' } })).toEqual(['spec.labels[app.io/name]: Invalid value: "string": short values only']);
  });

  it('reports a rule that fails to evaluate with the apiserver\'s "evaluating rule" wording', () => {
    const [error] = errorsOf(crdSchema({ list: { type: 'array', items: { type: 'string' } } }, [{ rule: "self.list[3] == 'x'", message: 'fourth item' }]), { list: ['a'] });
    expect(error).toMatch(/^spec: Invalid value: "object": .+ evaluating rule: fourth item$/);
  });

  it('escapes property names as Kubernetes does (max-size is self.max__dash__size)', () => {
    const schema = crdSchema({ 'max-size': { type: 'integer' } }, [{ rule: 'self.max__dash__size <= 10', message: 'max-size at most 10' }]);
    expect(errorsOf(schema, { 'max-size': 11 })).toEqual(['spec: Invalid value: "object": max-size at most 10']);
  });

  it('lets a rule on the root see apiVersion, kind and metadata.name', () => {
    const schema = crdSchema({}, [], [{ rule: "self.metadata.name.startsWith('s') && self.kind == 'X'", message: 'names start with s' }]);
    const validator = new CustomResourceValidator({ openApiSchema: schema });
    expect(validator.validate(object({}, { name: 'sample' }))).toEqual([]);
    expect(validator.validate(object({}, { name: 'other' })).map(fieldErrorText)).toEqual(['<nil>: Invalid value: "object": names start with s']);
  });

  describe('transition rules', () => {
    const schema = crdSchema({ size: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'size is immutable' }] } });

    it('are skipped on create', () => {
      expect(errorsOf(schema, { size: '2Gi' })).toEqual([]);
    });

    it('compare the new value with the old one on update', () => {
      expect(errorsOf(schema, { size: '2Gi' }, { size: '1Gi' })).toEqual(['spec.size: Invalid value: "string": size is immutable']);
      expect(errorsOf(schema, { size: '1Gi' }, { size: '1Gi' })).toEqual([]);
    });

    it('are skipped where the old object has no value', () => {
      expect(errorsOf(schema, { size: '2Gi' }, {})).toEqual([]);
    });
  });

  it('refuses at construction a rule calling a function the offline environment lacks, naming it', () => {
    const schema = crdSchema({ size: { type: 'string', 'x-kubernetes-validations': [{ rule: "quantity(self).isGreaterThan(quantity('1Gi'))" }] } });
    expect(() => new CustomResourceValidator({ openApiSchema: schema })).toThrow(UnsupportedCelFunctionError);
    expect(() => new CustomResourceValidator({ openApiSchema: schema })).toThrow(/calls isGreaterThan\(\), quantity\(\)/);
  });

  it('refuses at construction a rule that reads a date-time, which the apiserver would give as a timestamp', () => {
    const schema = crdSchema({ since: { type: 'string', format: 'date-time' } }, [{ rule: "self.since != ''" }]);
    expect(() => new CustomResourceValidator({ openApiSchema: schema })).toThrow(/spec\.since \(format date-time\)/);
  });
});

describe('CustomResourceValidator: schema, metadata and scale checks', () => {
  it('skips the rules after a blocking schema error and says so, as the apiserver does', () => {
    const schema = crdSchema({ mode: { type: 'string', enum: ['A', 'B'] } }, [{ rule: 'false', message: 'never shown' }]);
    expect(errorsOf(schema, { mode: 'C' })).toEqual([
      'spec.mode: Unsupported value: "C": supported values: "A", "B"',
      '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
  });

  it('still runs the rules after a non-blocking schema error (a bound)', () => {
    const schema = crdSchema({ n: { type: 'integer', minimum: 1 } }, [{ rule: 'self.n > 5', message: 'n above 5' }]);
    expect(errorsOf(schema, { n: 0 })).toEqual(['spec.n: Invalid value: 0: spec.n in body should be greater than or equal to 1', 'spec: Invalid value: "object": n above 5']);
  });

  it('prints float limits as Go does', () => {
    const schema = crdSchema({ big: { type: 'number', maximum: 1_000_000 }, small: { type: 'number', minimum: 0.5 } });
    expect(errorsOf(schema, { big: 2_500_000.5, small: 0.25 })).toEqual([
      'spec.big: Invalid value: 2.5000005e+06: spec.big in body should be less than or equal to 1e+06',
      'spec.small: Invalid value: 0.25: spec.small in body should be greater than or equal to 0.5',
    ]);
  });

  it('rejects unknown fields as strict field validation does', () => {
    expect(errorsOf(crdSchema({ a: { type: 'string' } }), { a: 'x', b: 1 })).toEqual(['strict decoding error: unknown field "spec.b"']);
  });

  it('checks the name as a DNS subdomain and a generateName prefix with its trailing dash masked', () => {
    const validator = new CustomResourceValidator({ openApiSchema: crdSchema({}) });
    expect(validator.validate(object({}, { generateName: 'cache-' }))).toEqual([]);
    expect(validator.validate(object({}, { name: 'Cache' })).map(fieldErrorText)).toEqual([
      `metadata.name: Invalid value: "Cache": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
    expect(validator.validate(object({}, {})).map(fieldErrorText)).toContain('metadata.name: Required value: name or generateName is required');
  });

  it('requires the scale subresource paths to hold integers', () => {
    const validator = new CustomResourceValidator({
      openApiSchema: crdSchema({ replicas: { type: 'integer' } }),
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
    });
    expect(validator.validate(object({ replicas: -1 })).map(fieldErrorText)).toEqual(['.spec.replicas: Invalid value: -1: should be a non-negative integer']);
    expect(validator.validate(object({ replicas: 'two' })).map(fieldErrorText)).toContain(
      '.spec.replicas: Invalid value: 0: .spec.replicas accessor error: two is of the type string, expected int64',
    );
  });

  it('does not modify the objects it validates', () => {
    const input = object({});
    new CustomResourceValidator({ openApiSchema: crdSchema({ size: { type: 'integer', default: 7 } }) }).validate(input);
    expect(input.spec).toEqual({});
  });
});
