import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { attributesMayConvert } from './git-index';
import { runGit, type GitEnvironment } from './git-process';
import { blobId, isAttributesFile, readText, userGitConfigFiles, userGitFile } from './local-snapshot';

const GIT_TIMEOUT_MS = 60_000;

/**
 * Whether git may convert content between this checkout's files and their blobs (`core.autocrlf`,
 * or a `filter`, `text`, `eol`, `crlf`, `ident` or `working-tree-encoding` attribute in the
 * checkout's `.gitattributes` files — `head` lists them —, `.git/info/attributes`, or the user's
 * and the system's attributes): then a clean file's bytes need not be its blob's, and nothing
 * keyed by blob (an index built from the commit) may stand in for reading it. Settings are read as
 * the user's git reads them. When git cannot be asked, the answer is yes.
 */
export async function checkoutMayConvert(root: string, environment: GitEnvironment, head: ReadonlyMap<string, string>): Promise<boolean> {
  const options = { cwd: root, timeoutMs: GIT_TIMEOUT_MS };
  try {
    const [repositorySettings, infoAttributes] = await Promise.all([
      runGit(environment, ['config', '--get-regexp', '^core\\.(autocrlf|attributesfile)$'], options).then((out) => out.toString('utf8'), () => ''),
      runGit(environment, ['rev-parse', '--git-path', 'info/attributes'], options).then((out) => path.resolve(root, out.toString('utf8').trim())),
    ]);
    const settings = [repositorySettings, ...userGitConfigFiles().map(readText)].join('\n');
    if (/autocrlf\s*=?\s*(true|input)\b/i.test(settings)) return true;
    const attributeFiles = [
      ...[...head.keys()].filter(isAttributesFile).map((relative) => path.join(root, relative)),
      infoAttributes,
      ...[...settings.matchAll(/attributesfile\s*=?\s*(\S+)/gi)].map((match) => match[1].replace(/^~(?=\/)/, os.homedir())),
      userGitFile('attributes'),
      '/etc/gitattributes',
    ];
    return attributeFiles.some((file) => attributesMayConvert(readText(file)));
  } catch {
    return true;
  }
}

/**
 * The bytes of blob `blob`, which a checkout holds at `relative`: the file itself when it hashes to
 * that blob (a clean file: no git process), else the blob from the repository (`git cat-file`: the
 * file was edited, or is being edited now). So what is returned is always the blob's content,
 * whatever happens to the file meanwhile — an index keyed by blob may be built from it. Undefined
 * when the repository lacks the blob.
 */
export async function readCheckoutBlob(root: string, relative: string, blob: string, environment: GitEnvironment): Promise<{ content: Buffer; fromFile: boolean } | undefined> {
  const content = await readFile(path.join(root, relative)).catch(() => undefined);
  if (content && blobId(content) === blob) return { content, fromFile: true };
  try {
    return { content: await runGit(environment, ['cat-file', 'blob', blob], { cwd: root, timeoutMs: GIT_TIMEOUT_MS }), fromFile: false };
  } catch {
    return undefined;
  }
}
