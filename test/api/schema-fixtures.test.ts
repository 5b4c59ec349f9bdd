import { loadSpecFixtures, redisClusterObject } from '../support/spec-fixtures';
import { redisClusterOpenApiSchema } from '../../src/api';
import { compileOpenApiSchema, openApiErrors } from '../../src/api/validation/openapi-schema-validation';

const fixtures = loadSpecFixtures();
const validate = compileOpenApiSchema(redisClusterOpenApiSchema());
const schemaErrorFields = (object: unknown) => openApiErrors(validate, structuredClone(object)).map((error) => error.field);

describe('the OpenAPI part of the RedisCluster schema, checked offline with ajv', () => {
  it('has at least 20 valid and 30 invalid fixtures', () => {
    expect(fixtures.valid.length).toBeGreaterThanOrEqual(20);
    expect(fixtures.invalid.length).toBeGreaterThanOrEqual(30);
  });

  it.each(fixtures.valid.map((fixture) => [fixture.name, fixture] as const))('accepts valid spec %s', (_name, fixture) => {
    expect(schemaErrorFields(redisClusterObject(fixture.name, fixture.spec))).toEqual([]);
  });

  const rejectedBySchema = fixtures.invalid.filter((fixture) => fixture.rejectedBy === 'schema' || fixture.rejectedBy === 'unknown-field');
  it.each(rejectedBySchema.map((fixture) => [fixture.name, fixture] as const))(
    'rejects invalid spec %s at the field its message names',
    (_name, fixture) => {
      const expectedField = fixture.message.replace(/^unknown field "(.*)"$/, '$1');
      expect(schemaErrorFields(redisClusterObject(fixture.name, fixture.spec, fixture.metadataName))).toContain(expectedField);
    },
  );

  // Only a CEL rule or the apiserver's metadata checks reject these: if the schema did, the fixture would not test them.
  const notForTheSchema = fixtures.invalid.filter((fixture) => fixture.rejectedBy === 'cel' || fixture.rejectedBy === 'metadata');
  it.each(notForTheSchema.map((fixture) => [fixture.name, fixture] as const))('leaves %s to the later checks (the schema accepts it)', (_name, fixture) => {
    expect(schemaErrorFields(redisClusterObject(fixture.name, fixture.spec, fixture.metadataName))).toEqual([]);
  });

  it.each([...fixtures.validUpdates, ...fixtures.invalidUpdates].map((fixture) => [fixture.name, fixture] as const))(
    'accepts both sides of update %s on their own (transition rules judge the change)',
    (_name, fixture) => {
      expect(schemaErrorFields(redisClusterObject(fixture.name, fixture.old))).toEqual([]);
      expect(schemaErrorFields(redisClusterObject(fixture.name, fixture.new))).toEqual([]);
    },
  );
});
