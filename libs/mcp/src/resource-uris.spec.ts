import { jobUri, parseResourceUri, repoFileUri } from './resource-uris';

describe('quarry:// resource URIs', () => {
  it('round-trips a job', () => {
    expect(parseResourceUri(jobUri('5d1c0a8e-1111-4222-8333-444455556666'))).toEqual({ type: 'job', id: '5d1c0a8e-1111-4222-8333-444455556666' });
  });

  it('round-trips a file of a git URL at a ref', () => {
    const uri = repoFileUri('https://host/owner/repo.git', 'src/a.ts', 'feature/x');
    expect(uri).toBe('quarry://repo/https%3A%2F%2Fhost%2Fowner%2Frepo.git/src/a.ts?ref=feature%2Fx');
    expect(parseResourceUri(uri)).toEqual({ type: 'repo-file', source: 'https://host/owner/repo.git', path: 'src/a.ts', ref: 'feature/x' });
    expect(parseResourceUri('quarry://repo/x/a.ts?ref=')).toBeUndefined();
    expect(parseResourceUri('quarry://repo/x/a.ts?ref=%E0%A4%A')).toBeUndefined();
  });

  it('round-trips a repository file, the repository path as one segment', () => {
    const uri = repoFileUri('/home/me/my project', 'src/a b.ts');
    expect(uri).toBe('quarry://repo/%2Fhome%2Fme%2Fmy%20project/src/a%20b.ts');
    expect(parseResourceUri(uri)).toEqual({ type: 'repo-file', source: '/home/me/my project', path: 'src/a b.ts' });
  });

  it('names nothing for other or malformed URIs', () => {
    for (const uri of ['quarry://jobs/', 'quarry://jobs/a/b', 'quarry://repo/%2Fx', 'quarry://repo/%E0%A4%A/x', 'file:///etc/passwd', 'quarry://other/1']) {
      expect({ uri, address: parseResourceUri(uri) }).toEqual({ uri, address: undefined });
    }
  });
});
