/**
 * Lets pending I/O callbacks (other requests, health checks) run before continuing. The router
 * calls it between the synchronous steps of a large request so no single request holds the event
 * loop for long.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
