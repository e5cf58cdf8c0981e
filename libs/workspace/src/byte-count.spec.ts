import { byteCountUsesSimd, countByte, countByteByIndexOf } from './byte-count';

/** A deterministic generator, so a failure names a case that can be run again. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function bufferOf(length: number, density: number, seed: number, byte = 0x0a): Buffer {
  const next = random(seed);
  const buffer = Buffer.alloc(length);
  for (let index = 0; index < length; index++) buffer[index] = next() < density ? byte : Math.floor(next() * 256);
  return buffer;
}

describe('countByte', () => {
  it('runs on WebAssembly SIMD in Node 20', () => {
    expect(byteCountUsesSimd()).toBe(true);
  });

  it('equals indexOf counting on every length around the 16-byte vectors and the 255-vector blocks', () => {
    const lengths = [0, 1, 15, 16, 17, 31, 32, 33, 255 * 16 - 1, 255 * 16, 255 * 16 + 1, 255 * 16 + 17, 2 * 255 * 16 + 5];
    for (const length of lengths) {
      for (const density of [0, 0.05, 0.5, 1]) {
        const buffer = bufferOf(length, density, length * 7 + density * 100);
        expect([length, density, countByte(buffer, length, 0x0a)]).toEqual([length, density, countByteByIndexOf(buffer, length, 0x0a)]);
      }
    }
  });

  it('counts a buffer of nothing but the byte, past what one block of byte-wide counters holds', () => {
    // 255 vectors of 16 matches fill every byte-wide counter to 255; one more would wrap to 0.
    for (const length of [255 * 16, 256 * 16, 65_536, 200_000]) {
      expect(countByte(Buffer.alloc(length, 0x0a), length, 0x0a)).toBe(length);
    }
  });

  it('counts only the first `length` bytes, across windows, in views at any offset', () => {
    const whole = bufferOf(300_000, 0.03, 42);
    for (const [offset, length] of [[0, 65_536], [1, 65_536], [3, 131_073], [17, 299_000], [65_535, 10]]) {
      const view = whole.subarray(offset);
      expect(countByte(view, length, 0x0a)).toBe(countByteByIndexOf(view, length, 0x0a));
    }
    const longer = Buffer.alloc(100, 0x0a);
    expect(countByte(longer, 40, 0x0a)).toBe(40);
  });

  it('counts any byte value, NUL and 0xff included', () => {
    for (const byte of [0x00, 0x0a, 0x7f, 0x80, 0xff]) {
      const buffer = bufferOf(70_000, 0.1, byte + 1, byte);
      expect(countByte(buffer, buffer.length, byte)).toBe(countByteByIndexOf(buffer, buffer.length, byte));
    }
  });

  it('agrees with indexOf on random buffers', () => {
    const next = random(7);
    for (let round = 0; round < 100; round++) {
      const length = Math.floor(next() * 70_000);
      const buffer = bufferOf(length, next() * 0.2, round);
      expect(countByte(buffer, length, 0x0a)).toBe(countByteByIndexOf(buffer, length, 0x0a));
    }
  });
});
