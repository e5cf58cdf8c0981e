/** Exit codes: 0 success, 1 the job (or the operation) failed, 2 usage error. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export function printError(error: { kind: string; message: string; suggestion?: string }): void {
  console.error(`error [${error.kind}]: ${error.message}`);
  if (error.suggestion) console.error(`  ${error.suggestion}`);
}
