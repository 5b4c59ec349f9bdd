import { ValidateFunction } from 'ajv';
import { CelRuleTree, celRuleErrors, compileCelRules } from './cel-rule-validation';
import { FieldError, FieldErrorReason, ROOT_FIELD, fieldErrors } from './field-error';
import { objectMetaErrors } from './object-meta-validation';
import { compileOpenApiSchema, openApiErrors } from './openapi-schema-validation';
import { ScaleSubresource, scaleSubresourceErrors } from './scale-subresource-validation';

/**
 * Admission of a custom resource as the kube-apiserver performs it for a CRD (customResourceStrategy.Validate in
 * k8s.io/apiextensions-apiserver/pkg/registry/customresource/strategy.go), offline: the metadata checks, unknown
 * fields (strict field validation), defaulting and the OpenAPI schema, the scale subresource's paths, then the CEL
 * rules unless an earlier error leaves the object too malformed for them. Compiled once; `validate` is pure and cheap enough to run on every synth.
 */

/** Schema errors after which the apiserver does not evaluate CEL rules (hasBlockingErr). */
const BLOCKING_REASONS: ReadonlySet<FieldErrorReason> = new Set([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

/** The parts of a CRD version that admission reads. */
export interface CustomResourceVersion {
  /** `schema.openAPIV3Schema` */
  readonly openApiSchema: Record<string, unknown>;
  /** `subresources.scale` @default - no scale subresource */
  readonly scale?: ScaleSubresource;
}

export class CustomResourceValidator {
  private readonly openApi: ValidateFunction;
  private readonly celRules: CelRuleTree | undefined;
  private readonly scale: ScaleSubresource | undefined;

  constructor(version: CustomResourceVersion) {
    this.openApi = compileOpenApiSchema(version.openApiSchema);
    this.celRules = compileCelRules(version.openApiSchema);
    this.scale = version.scale;
  }

  /**
   * The errors the apiserver would report for creating `object`, or, with `oldObject`, for updating `oldObject`
   * (as stored, so defaults apply to it as well) to `object`. Neither argument is modified.
   */
  validate(object: unknown, oldObject?: unknown): FieldError[] {
    const candidate = structuredClone(object);
    const errors = [
      ...objectMetaErrors(candidate),
      ...openApiErrors(this.openApi, candidate),
      ...(this.scale ? scaleSubresourceErrors(candidate, this.scale) : []),
    ];
    if (errors.some((error) => BLOCKING_REASONS.has(error.reason))) {
      return [
        ...errors,
        fieldErrors.invalid(ROOT_FIELD, null, 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation'),
      ];
    }
    const old = oldObject === undefined ? undefined : this.defaulted(oldObject);
    return [...errors, ...celRuleErrors(this.celRules, candidate, old)];
  }

  private defaulted(object: unknown): unknown {
    const copy = structuredClone(object);
    this.openApi(copy);
    return copy;
  }
}
