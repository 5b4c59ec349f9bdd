import { errorPaths, redisClusterValidator } from '../support/crd-ajv';
import { loadSpecFixtures, redisClusterObject } from '../support/spec-fixtures';

const fixtures = loadSpecFixtures();
const validate = redisClusterValidator();

describe('the RedisCluster schema, checked offline with ajv', () => {
  it('has at least 20 valid and 30 invalid fixtures', () => {
    expect(fixtures.valid.length).toBeGreaterThanOrEqual(20);
    expect(fixtures.invalid.length).toBeGreaterThanOrEqual(30);
  });

  it.each(fixtures.valid.map((fixture) => [fixture.name, fixture] as const))('accepts valid spec %s', (_name, fixture) => {
    const ok = validate(redisClusterObject(fixture.name, structuredClone(fixture.spec)));
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  const rejectedOffline = fixtures.invalid.filter((fixture) => fixture.rejectedBy !== 'cel');
  it.each(rejectedOffline.map((fixture) => [fixture.name, fixture] as const))(
    'rejects invalid spec %s at the field its message names',
    (_name, fixture) => {
      const ok = validate(redisClusterObject(fixture.name, structuredClone(fixture.spec), fixture.metadataName));
      expect(ok).toBe(false);
      const expectedPath = fixture.message.replace(/^unknown field "(.*)"$/, '$1');
      expect(errorPaths(validate)).toContain(expectedPath);
    },
  );

  // CEL rules are the only thing rejecting these: if the schema rejected them, the fixture would not test CEL.
  const celOnly = fixtures.invalid.filter((fixture) => fixture.rejectedBy === 'cel');
  it.each(celOnly.map((fixture) => [fixture.name, fixture] as const))(
    'leaves %s to a CEL rule (the OpenAPI part of the schema accepts it)',
    (_name, fixture) => {
      expect(validate(redisClusterObject(fixture.name, structuredClone(fixture.spec)))).toBe(true);
    },
  );

  it.each([...fixtures.validUpdates, ...fixtures.invalidUpdates].map((fixture) => [fixture.name, fixture] as const))(
    'accepts both sides of update %s on their own (transition rules judge the change)',
    (_name, fixture) => {
      expect(validate(redisClusterObject(fixture.name, structuredClone(fixture.old)))).toBe(true);
      expect(validate(redisClusterObject(fixture.name, structuredClone(fixture.new)))).toBe(true);
    },
  );
});
