import { formatBytes, formatCount } from './format';

describe('formatCount', () => {
  it('groups whole numbers as en-US does', () => {
    for (const value of [0, 7, 12, 999, 1_000, 12_345, 999_999, 1_000_000, 78_255, 1_234_567_890, -1, -1_000, -123_456, Number.MAX_SAFE_INTEGER]) {
      expect(formatCount(value)).toBe(value.toLocaleString('en-US'));
    }
  });

  it('leaves fractions and huge values to Intl', () => {
    expect(formatCount(1234.5)).toBe('1,234.5');
    expect(formatCount(2 ** 60)).toBe((2 ** 60).toLocaleString('en-US'));
  });
});

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [812, '812 B'],
    [1_023, '1023 B'],
    [1_024, '1 KiB'],
    [1_536, '1.5 KiB'],
    [40_000, '39 KiB'],
    [200_000, '195 KiB'],
    [1_200_000, '1.1 MiB'],
    [64 * 1024 * 1024, '64 MiB'],
    [5 * 1024 ** 3, '5 GiB'],
    [4.25 * 1024 ** 4, '4.3 TiB'],
  ])('%d → %s', (bytes, text) => expect(formatBytes(bytes)).toBe(text));
});
