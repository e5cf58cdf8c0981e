import { number } from './numbers';

describe('number', () => {
  it('groups whole numbers as en-US does', () => {
    for (const value of [0, 7, 12, 999, 1_000, 12_345, 999_999, 1_000_000, 78_255, 1_234_567_890, -1, -1_000, -123_456, Number.MAX_SAFE_INTEGER]) {
      expect(number(value)).toBe(value.toLocaleString('en-US'));
    }
  });

  it('leaves fractions and huge values to Intl', () => {
    expect(number(1234.5)).toBe('1,234.5');
    expect(number(2 ** 60)).toBe((2 ** 60).toLocaleString('en-US'));
  });
});
