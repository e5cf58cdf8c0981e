import { z } from 'zod';
import { isQuarryError } from '@quarry/contracts';
import { clip, issuePath, parseStructuredAnswer, stripJsonFence, toResponseSchema } from './structured-output';

const schema = z.object({ language: z.string(), confidence: z.number().min(0).max(1), ports: z.array(z.number().int()) });

function failure(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    if (isQuarryError(error)) return error;
    throw error;
  }
  throw new Error('expected a QuarryError');
}

describe('structured output', () => {
  it('sends a strict-mode friendly JSON Schema (no $schema, closed objects, every key required)', () => {
    const json = toResponseSchema(schema);
    expect(json.$schema).toBeUndefined();
    expect(json).toMatchObject({ type: 'object', additionalProperties: false, required: ['language', 'confidence', 'ports'] });
  });

  it('strips a ```json fence and leaves plain JSON alone', () => {
    expect(stripJsonFence('```json\n{"a":1}\n```')).toBe('{"a":1}');
    expect(stripJsonFence('Here you go:\n```\n{"a":1}\n```\nanything else?')).toBe('{"a":1}');
    expect(stripJsonFence('  {"a":1} ')).toBe('{"a":1}');
  });

  it('parses and validates', () => {
    expect(parseStructuredAnswer('{"language":"zig","confidence":0.8,"ports":[]}', schema, 'stack')).toEqual({ language: 'zig', confidence: 0.8, ports: [] });
  });

  it('quotes a clipped piece of an answer that is not JSON', () => {
    const error = failure(() => parseStructuredAnswer(`I think it is Rust. ${'x'.repeat(500)}`, schema, 'stack'));
    expect(error.kind).toBe('llm_invalid_output');
    expect(error.permanent).toBe(true);
    expect(error.message).toContain('is not JSON');
    expect(error.message).toContain('"I think it is Rust.');
    expect(error.message.length).toBeLessThan(400);
  });

  it('names the path of each schema problem', () => {
    const error = failure(() => parseStructuredAnswer('{"language":"go","confidence":"high","ports":[80,"http"]}', schema, 'stack'));
    expect(error.kind).toBe('llm_invalid_output');
    expect(error.message).toMatch(/does not match stack at confidence: .*; at ports\[1\]: /);
  });

  it('formats paths and clips', () => {
    expect(issuePath([])).toBe('(root)');
    expect(issuePath(['runtime', 'ports', 0, 'number'])).toBe('runtime.ports[0].number');
    expect(clip('a\n  b')).toBe('"a b"');
    expect(clip('abcdef', 3)).toBe('"abc…"');
  });
});
