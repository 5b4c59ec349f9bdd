import { parseBindAddress } from '../../../../operator/runtime/server/bind-address';
import { toMicroTime } from '../../../../operator/runtime/events/micro-time';

describe('parseBindAddress', () => {
  it('reads controller-runtime style addresses', () => {
    expect(parseBindAddress(':8080')).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(parseBindAddress('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseBindAddress('[::1]:9090')).toEqual({ host: '::1', port: 9090 });
  });

  it('treats "0" and "" as disabled', () => {
    expect(parseBindAddress('0')).toBeUndefined();
    expect(parseBindAddress('')).toBeUndefined();
  });

  it('rejects malformed addresses', () => {
    expect(() => parseBindAddress('8080')).toThrow(RangeError);
    expect(() => parseBindAddress(':99999')).toThrow(RangeError);
  });
});

describe('toMicroTime', () => {
  it('writes exactly six fractional digits, as the apiserver requires', () => {
    expect(toMicroTime(Date.UTC(2025, 0, 2, 3, 4, 5, 678))).toBe('2025-01-02T03:04:05.678000Z');
  });
});
