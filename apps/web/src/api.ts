import type { JobEventView, JobPage, JobView, NavigationInput, QuarryErrorBody, ServiceMap } from './contracts.js';

const KEY_STORAGE = 'quarry.apiKey';

export function storedKey(): string {
  try {
    return localStorage.getItem(KEY_STORAGE) ?? '';
  } catch {
    return '';
  }
}

export function storeKey(key: string): void {
  try {
    if (key) localStorage.setItem(KEY_STORAGE, key);
    else localStorage.removeItem(KEY_STORAGE);
  } catch {
    /* private mode: the key lives for this page only */
  }
}

/** A refusal from the gateway, with its typed body (`{kind, message, suggestion}`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: QuarryErrorBody,
  ) {
    super(body.message);
  }
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const key = storedKey();
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, {
      kind: 'unavailable',
      message: 'The gateway does not answer.',
      suggestion: 'Check that Quarry is running; this page retries by itself.',
    });
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const error = parsed as Partial<QuarryErrorBody> | undefined;
    throw new ApiError(response.status, {
      kind: typeof error?.kind === 'string' ? error.kind : 'internal',
      message: typeof error?.message === 'string' ? error.message : `The gateway answered ${response.status}.`,
      ...(typeof error?.suggestion === 'string' ? { suggestion: error.suggestion } : {}),
    });
  }
  return parsed as T;
}

export const api = {
  service: () => request<ServiceMap>('GET', '/'),
  list: (query: { kind?: string; status?: string; limit?: number }) => {
    const params = new URLSearchParams();
    if (query.kind) params.set('kind', query.kind);
    if (query.status) params.set('status', query.status);
    params.set('limit', String(query.limit ?? 50));
    return request<JobPage>('GET', `/v1/jobs?${params}`);
  },
  get: (id: string) => request<JobView>('GET', `/v1/jobs/${encodeURIComponent(id)}`),
  history: (id: string) => request<JobEventView[]>('GET', `/v1/jobs/${encodeURIComponent(id)}/events`),
  submit: (kind: string, input: unknown) => request<JobView>('POST', '/v1/jobs', { kind, input }),
  cancel: (id: string) => request<JobView>('POST', `/v1/jobs/${encodeURIComponent(id)}/cancel`),
  retry: (id: string) => request<JobView>('POST', `/v1/jobs/${encodeURIComponent(id)}/retry`),
  /** One navigation read (references, callers…), answered in the request. */
  navigate: <T>(input: NavigationInput) => request<T>('POST', '/v1/navigation', input),
  /** A job's artifact (a pack's document) as a Blob, with the stored key; refusals as ApiError. */
  artifact: async (id: string): Promise<Blob> => {
    const key = storedKey();
    const response = await fetch(`/v1/jobs/${encodeURIComponent(id)}/artifact`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    if (!response.ok) {
      const body = (await response.json().catch(() => ({}))) as Partial<QuarryErrorBody>;
      throw new ApiError(response.status, { kind: body.kind ?? 'internal', message: body.message ?? `The gateway answered ${response.status}.`, ...(body.suggestion ? { suggestion: body.suggestion } : {}) });
    }
    return response.blob();
  },
};
