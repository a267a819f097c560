/** The server version, shown by /status, /metrics and the Prometheus buildinfo endpoint. */
export const VERSION = '0.1.0';
