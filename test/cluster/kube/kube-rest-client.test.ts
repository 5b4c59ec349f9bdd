import { KubeApiError, retryDelayMilliseconds } from './kube-rest-client';

const connectionError = (code: string): Error => Object.assign(new Error(code === 'ECONNRESET' ? 'socket hang up' : code), { code });

describe('retryDelayMilliseconds', () => {
  it.each(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'REQUEST_TIMEOUT'])('retries a request whose connection failed with %s', (code) => {
    expect(retryDelayMilliseconds(connectionError(code), 1)).toBeGreaterThan(0);
  });

  it.each([429, 503, 504])('retries an answer of %i', (statusCode) => {
    expect(retryDelayMilliseconds(new KubeApiError('POST', '/x', statusCode, 'TooManyRequests', ''), 1)).toBeGreaterThan(0);
  });

  it('honours Retry-After, capped at 5 s', () => {
    expect(retryDelayMilliseconds(new KubeApiError('POST', '/x', 429, 'TooManyRequests', '', 1), 1)).toBe(1000);
    expect(retryDelayMilliseconds(new KubeApiError('POST', '/x', 429, 'TooManyRequests', '', 60), 1)).toBe(5000);
  });

  it.each([400, 404, 409, 422, 500])('does not retry an answer of %i', (statusCode) => {
    expect(retryDelayMilliseconds(new KubeApiError('POST', '/x', statusCode, 'Whatever', ''), 1)).toBeUndefined();
  });

  it('does not retry an error that is not about the connection', () => {
    expect(retryDelayMilliseconds(new SyntaxError('Unexpected token'), 1)).toBeUndefined();
  });
});
