import {
  BUILT_KINDS,
  JOB_CONTRACTS,
  JOB_KINDS,
  JOB_STATUSES,
  QuarryError,
  canTransition,
  closestMatch,
  editDistance,
  httpStatusFor,
  isTerminal,
  parseOrThrow,
  scanInputSchema,
  statusesLeadingTo,
} from './index';

describe('job kinds and contracts', () => {
  it('has an input and a result schema for every kind', () => {
    for (const kind of JOB_KINDS) {
      expect(JOB_CONTRACTS[kind].input).toBeDefined();
      expect(JOB_CONTRACTS[kind].result).toBeDefined();
    }
  });

  it('builds only known kinds, scan first', () => {
    expect(BUILT_KINDS).toContain('scan');
    for (const kind of BUILT_KINDS) expect(JOB_KINDS).toContain(kind);
  });

  it('fills input defaults for planned kinds', () => {
    expect(JOB_CONTRACTS.detect.input.parse({ root: '/r' })).toEqual({ root: '/r' });
    expect(JOB_CONTRACTS.detect.input.parse({ root: '/r', mode: 'static' })).toEqual({ root: '/r', mode: 'static' });
    expect(JOB_CONTRACTS.fetch.input.parse({ url: 'https://example.org' })).toEqual({ url: 'https://example.org', force: false });
  });
});

describe('the job status machine', () => {
  it('allows the documented transitions only', () => {
    expect(canTransition('queued', 'running')).toBe(true);
    expect(canTransition('running', 'succeeded')).toBe(true);
    expect(canTransition('running', 'queued')).toBe(true); // transient failure, retried
    expect(canTransition('failed', 'queued')).toBe(true); // retry
    expect(canTransition('cancelled', 'queued')).toBe(true);
    expect(canTransition('succeeded', 'queued')).toBe(false);
    expect(canTransition('succeeded', 'failed')).toBe(false);
    expect(canTransition('queued', 'succeeded')).toBe(false);
    expect(canTransition('cancelled', 'running')).toBe(false);
  });

  it('has no way out of succeeded and knows the terminal states', () => {
    for (const to of JOB_STATUSES) expect(canTransition('succeeded', to)).toBe(false);
    expect(JOB_STATUSES.filter(isTerminal)).toEqual(['succeeded', 'failed', 'cancelled']);
    expect(statusesLeadingTo('running')).toEqual(['queued']);
    expect(statusesLeadingTo('cancelled')).toEqual(['queued', 'running']);
  });
});

describe('errors', () => {
  it('maps kinds to HTTP statuses, defaulting to 400', () => {
    expect(httpStatusFor('unauthorized')).toBe(401);
    expect(httpStatusFor('path_outside_root')).toBe(403);
    expect(httpStatusFor('job_not_found')).toBe(404);
    expect(httpStatusFor('job_not_retryable')).toBe(409);
    expect(httpStatusFor('body_too_large')).toBe(413);
    expect(httpStatusFor('kind_not_available')).toBe(422);
    expect(httpStatusFor('input_invalid')).toBe(400);
    expect(httpStatusFor('something_new')).toBe(400);
  });

  it('serialises without an empty suggestion and is permanent unless told otherwise', () => {
    expect(new QuarryError('file_not_found', 'no file').toBody()).toEqual({ kind: 'file_not_found', message: 'no file' });
    expect(new QuarryError('internal', 'x', { permanent: false }).permanent).toBe(false);
    expect(new QuarryError('input_invalid', 'x').permanent).toBe(true);
  });

  it('names the first bad field in input_invalid', () => {
    expect(() => parseOrThrow(scanInputSchema, { root: 7 })).toThrow(/^input\.root: /);
    try {
      parseOrThrow(scanInputSchema, {}, 'body');
    } catch (error) {
      expect(error).toBeInstanceOf(QuarryError);
      expect((error as QuarryError).kind).toBe('input_invalid');
      expect((error as QuarryError).message).toContain('body.root');
    }
  });
});

describe('did-you-mean', () => {
  it('counts a swap of neighbouring letters as one edit', () => {
    expect(editDistance('scna', 'scan')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('suggests only close candidates', () => {
    expect(closestMatch('scna', JOB_KINDS)).toBe('scan');
    expect(closestMatch('mention', JOB_KINDS)).toBe('mentions');
    expect(closestMatch('FETCH', JOB_KINDS)).toBe('fetch');
    expect(closestMatch('banana', JOB_KINDS)).toBeUndefined();
  });
});
