import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { QuarryError } from '@quarry/contracts/errors';

/**
 * How every git command Quarry runs is started: no inherited environment (no proxy variables, no
 * HOME with a user's config, no askpass), no system or global config, no terminal prompt, and
 * configuration that keeps git to http(s) through our proxy, without hooks, submodules or
 * background maintenance. Secrets (per-host credentials) travel in the environment, never argv.
 */
export interface GitEnvironment {
  /** An empty directory git may treat as HOME. */
  home: string;
  /** `http://user:token@127.0.0.1:port`: the guarded proxy every remote connection goes through. */
  proxyUrl?: string;
  /** Extra `-c` settings (credential helpers by host) and environment (their secrets). */
  config?: readonly string[];
  env?: Readonly<Record<string, string>>;
}

/** Settings on every command. `protocol.allow=never` first, then the two it permits. */
const SAFE_CONFIG = [
  'protocol.allow=never',
  'protocol.https.allow=always',
  'protocol.http.allow=always',
  'protocol.version=2',
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.askPass=',
  'credential.helper=',
  'submodule.recurse=false',
  'fetch.recurseSubmodules=false',
  'fetch.writeCommitGraph=false',
  'fetch.unpackLimit=1',
  'transfer.unpackLimit=1',
  'gc.auto=0',
  'maintenance.auto=false',
  'core.pager=cat',
  'advice.detachedHead=false',
  'http.followRedirects=initial',
  // A stalled server is dropped rather than holding a job for ever (the job's own timeout is the bound).
  'http.lowSpeedLimit=1000',
  'http.lowSpeedTime=30',
];

export function gitArgs(environment: GitEnvironment, args: readonly string[]): string[] {
  const config = [...SAFE_CONFIG];
  // Without the proxy a command must not reach the network at all: a partial clone's lazy fetch
  // would otherwise connect straight to the origin, around the address policy.
  if (!environment.proxyUrl) config.push('protocol.https.allow=never', 'protocol.http.allow=never');
  config.push(...(environment.config ?? []));
  return [...config.flatMap((setting) => ['-c', setting]), ...args];
}

export function gitEnv(environment: GitEnvironment): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: environment.home,
    XDG_CONFIG_HOME: environment.home,
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '/bin/false',
    SSH_ASKPASS: '/bin/false',
    GCM_INTERACTIVE: 'never',
    GIT_PROTOCOL_FROM_USER: '0',
    GIT_OPTIONAL_LOCKS: '0',
    // The proxy's session token goes in the environment, not argv (which `ps` shows every user).
    ...(environment.proxyUrl
      ? { GIT_CONFIG_COUNT: '2', GIT_CONFIG_KEY_0: 'http.proxy', GIT_CONFIG_VALUE_0: environment.proxyUrl, GIT_CONFIG_KEY_1: 'http.proxyAuthMethod', GIT_CONFIG_VALUE_1: 'basic' }
      : {}),
    ...environment.env,
  };
}

export interface RunGitOptions {
  cwd?: string;
  input?: string | Buffer;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Output beyond this is an error (a listing larger than any repository Quarry takes). */
  maxOutputBytes?: number;
}

export class GitCommandError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly code: number | null,
    readonly stderr: string,
    readonly timedOut: boolean,
  ) {
    super(`git ${args.find((arg) => !arg.startsWith('-') && !arg.includes('=')) ?? ''} failed (${timedOut ? 'timed out' : `exit ${code}`}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
    this.name = 'GitCommandError';
  }
}

const DEFAULT_MAX_OUTPUT = 512 * 1024 * 1024;

/** Runs git to completion; rejects with GitCommandError (exit, timeout) or the signal's reason. */
export function runGit(environment: GitEnvironment, args: readonly string[], options: RunGitOptions): Promise<Buffer> {
  options.signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    const child = spawnGit(environment, args, options.cwd);
    child.unref();
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let timedOut = false;
    let overflow = false;
    const limit = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, options.timeoutMs);
    const onAbort = () => killGroup(child);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        overflow = true;
        killGroup(child);
        return;
      }
      chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += chunk.toString('utf8');
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new QuarryError('internal', `git could not be started: ${error.message}`, { suggestion: 'Install git on the worker (apt-get install git).', permanent: false, cause: error }));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (options.signal?.aborted) return reject(options.signal.reason);
      if (overflow) return reject(new GitCommandError(args, code, `output over ${limit} bytes`, false));
      if (code === 0 && !timedOut) return resolve(Buffer.concat(chunks));
      reject(new GitCommandError(args, code, stderr, timedOut));
    });
    child.stdin.on('error', () => undefined); // git may exit before reading all its input
    child.stdin.end(options.input ?? '');
  });
}

/** In its own process group, so a kill also ends the helpers it started (git-remote-http holds the pipes). */
export function spawnGit(environment: GitEnvironment, args: readonly string[], cwd?: string): ChildProcessWithoutNullStreams {
  return spawn('git', gitArgs(environment, args), { cwd, env: gitEnv(environment), stdio: ['pipe', 'pipe', 'pipe'], detached: true });
}

export function killGroup(child: ChildProcessWithoutNullStreams): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}
