import { loadSpecFixtures, redisClusterObject } from './spec-fixtures';

/**
 * Every fixture of test/fixtures/redis-cluster-specs.yaml as one admission request: a create, or for update
 * fixtures a create of `old` followed by an update to `new`. Shared by the offline and the apiserver agreement tests.
 */
export interface AdmissionCase {
  /** `valid/<fixture>`, `invalid/<fixture>`, `validUpdates/<fixture>` or `invalidUpdates/<fixture>`. */
  readonly id: string;
  /** The object to create, or for an update the object to replace the stored one with. */
  readonly object: Record<string, unknown>;
  /** For an update: the object created first. */
  readonly oldObject?: Record<string, unknown>;
  readonly verdict: 'accept' | 'reject';
  /** The fragment the fixture says the rejection must contain. */
  readonly message?: string;
}

export function admissionCases(): AdmissionCase[] {
  const fixtures = loadSpecFixtures();
  // Prefixes keep object names unique across groups when the cases share one namespace.
  const object = (prefix: string, name: string, spec: Record<string, unknown>, metadataName?: string) =>
    redisClusterObject(`${prefix}-${name}`, structuredClone(spec), metadataName) as Record<string, unknown>;
  return [
    ...fixtures.valid.map((fixture): AdmissionCase => ({ id: `valid/${fixture.name}`, object: object('v', fixture.name, fixture.spec), verdict: 'accept' })),
    ...fixtures.invalid.map((fixture): AdmissionCase => ({
      id: `invalid/${fixture.name}`,
      object: object('x', fixture.name, fixture.spec, fixture.metadataName),
      verdict: 'reject',
      message: fixture.message,
    })),
    ...fixtures.validUpdates.map((fixture): AdmissionCase => ({
      id: `validUpdates/${fixture.name}`,
      oldObject: object('u', fixture.name, fixture.old),
      object: object('u', fixture.name, fixture.new),
      verdict: 'accept',
    })),
    ...fixtures.invalidUpdates.map((fixture): AdmissionCase => ({
      id: `invalidUpdates/${fixture.name}`,
      oldObject: object('w', fixture.name, fixture.old),
      object: object('w', fixture.name, fixture.new),
      verdict: 'reject',
      message: fixture.message,
    })),
  ];
}
