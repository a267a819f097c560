import t from 'tap';
import { registerEndToEnd } from './helpers/e2e-suite.js';
import { TestEnv } from './helpers/test-env.js';

// executeSql end to end over two in-memory shards (see shard-store.test.ts for the real engine).
registerEndToEnd(t, {
  make: async () => TestEnv.memory(2),
  close: async () => {},
});
