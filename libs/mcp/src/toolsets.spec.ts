import { DEFAULT_TOOLSETS, TOOLSET_NAMES, parseToolsets } from './toolsets';

describe('parseToolsets', () => {
  it('reads a comma-separated list (or several), in the table order, without repeats', () => {
    expect(parseToolsets('search, files')).toEqual(['files', 'search']);
    expect(parseToolsets(['jobs', 'files,jobs'])).toEqual(['files', 'jobs']);
    expect(parseToolsets('FILES')).toEqual(['files']);
  });

  it('takes all, default, and nothing as the default', () => {
    expect(parseToolsets('all')).toEqual(TOOLSET_NAMES);
    expect(parseToolsets(undefined)).toEqual(DEFAULT_TOOLSETS);
    expect(parseToolsets('')).toEqual(DEFAULT_TOOLSETS);
    expect(parseToolsets('default,web')).toEqual(TOOLSET_NAMES.filter((set) => DEFAULT_TOOLSETS.includes(set) || set === 'web'));
  });

  it('refuses an unknown name with toolset_unknown naming the closest', () => {
    expect(() => parseToolsets('files,serch')).toThrow(expect.objectContaining({ kind: 'toolset_unknown', message: expect.stringContaining('"serch"'), suggestion: expect.stringContaining('"search"') }));
  });
});
