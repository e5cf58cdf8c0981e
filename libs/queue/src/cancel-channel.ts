/**
 * Cancelling a running job must reach whichever worker process holds it, on any machine: the
 * gateway publishes the job id on this Redis channel and every worker aborts it if it has it.
 */
export function cancelChannel(prefix: string): string {
  return `${prefix}:cancel`;
}
