/**
 * Validation errors worded exactly as the kube-apiserver words them (k8s.io/apimachinery/pkg/util/validation/field
 * and the CRD handler in k8s.io/apiextensions-apiserver), so an error found at synth time reads like the one
 * `kubectl apply` or Argo CD would show at admission.
 */

/** The `reason` of a cause in the apiserver's Status (`details.causes[].reason`). */
export type FieldErrorReason =
  | 'FieldValueInvalid'
  | 'FieldValueTypeInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueRequired'
  | 'FieldValueForbidden'
  | 'FieldValueDuplicate'
  /** Not a cause but a strict-decoding failure: the apiserver refuses the request before validating it. */
  | 'FieldValueUnknown';

export interface FieldError {
  readonly reason: FieldErrorReason;
  /** The field, in the apiserver's notation (`spec.scheduling.tolerations[0].operator`); `<nil>` for the root. */
  readonly field: string;
  /** The cause's message as the apiserver reports it (`details.causes[].message`): everything after `<field>: `. */
  readonly message: string;
}

/** The path of the whole object in the apiserver's notation (a nil `field.Path`). */
export const ROOT_FIELD = '<nil>';

/** One error as the apiserver prints it inside its message: `spec.replicas: Invalid value: 0: ...`. */
export function fieldErrorText(error: FieldError): string {
  return error.reason === 'FieldValueUnknown' ? `strict decoding error: ${error.message}` : `${error.field}: ${error.message}`;
}

/**
 * Go's `%v` for a float64 (strconv 'g' with the shortest precision): what the apiserver prints for schema limits,
 * which kube-openapi keeps as float64 (`should be greater than or equal to 1`, `1e+06`).
 */
export function goFloat(value: number): string {
  if (value === 0 || !Number.isFinite(value)) return String(value);
  const [mantissa, exponentText] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  // Go switches to exponent notation below 1e-4 and from 1e6 on when printing the shortest representation.
  if (exponent < -4 || exponent >= 6) {
    return `${mantissa}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return String(value);
}

/**
 * A bad value as field.Error prints it (ErrorBody): floats and booleans with `%v`, strings with `%q`, anything else
 * (integers included, as the apiserver holds them as int) as JSON, so nil is `null`.
 */
export function goValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : goFloat(value);
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value ?? null);
}

const withDetail = (text: string, detail: string | undefined) => (detail ? `${text}: ${detail}` : text);

/** Constructors mirroring `field.Invalid`, `field.NotSupported`, ... */
export const fieldErrors = {
  invalid: (field: string, value: unknown, detail?: string): FieldError => ({
    reason: 'FieldValueInvalid',
    field,
    message: withDetail(`Invalid value: ${goValue(value)}`, detail),
  }),
  typeInvalid: (field: string, value: unknown, detail?: string): FieldError => ({
    reason: 'FieldValueTypeInvalid',
    field,
    message: withDetail(`Invalid value: ${goValue(value)}`, detail),
  }),
  notSupported: (field: string, value: unknown, supported: readonly unknown[]): FieldError => ({
    reason: 'FieldValueNotSupported',
    field,
    message: withDetail(
      `Unsupported value: ${goValue(value)}`,
      supported.length > 0 ? `supported values: ${supported.map((item) => JSON.stringify(typeof item === 'string' ? item : JSON.stringify(item))).join(', ')}` : undefined,
    ),
  }),
  tooLong: (field: string, maxLength: number): FieldError => ({
    reason: 'FieldValueTooLong',
    field,
    message: `Too long: may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}`,
  }),
  tooMany: (field: string, actual: number, max: number): FieldError => ({
    reason: 'FieldValueTooMany',
    field,
    message: `Too many: ${actual}: must have at most ${max} ${max === 1 ? 'item' : 'items'}`,
  }),
  required: (field: string, detail?: string): FieldError => ({ reason: 'FieldValueRequired', field, message: withDetail('Required value', detail) }),
  forbidden: (field: string, detail?: string): FieldError => ({ reason: 'FieldValueForbidden', field, message: withDetail('Forbidden', detail) }),
  duplicate: (field: string, value: unknown): FieldError => ({ reason: 'FieldValueDuplicate', field, message: `Duplicate value: ${goValue(value)}` }),
  unknown: (field: string): FieldError => ({ reason: 'FieldValueUnknown', field, message: `unknown field ${JSON.stringify(field)}` }),
};
