/**
 * Closes a Nest application on SIGTERM/SIGINT and exits 0 once it has drained. Nest's own
 * enableShutdownHooks() runs the same lifecycle hooks but then re-raises the signal, so a worker
 * that finished its jobs cleanly would still report "killed by SIGTERM" to its supervisor.
 */
export function closeOnSignals(app: { close(): Promise<void> }, onError: (error: unknown) => void = console.error): void {
  let closing = false;
  const close = () => {
    if (closing) return;
    closing = true;
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        onError(error);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', close);
  process.once('SIGINT', close);
}
