/** Reading the configuration file: TOML, with the position of a syntax error in the message. */
import fs from 'node:fs';
import { parse, TomlError } from 'smol-toml';

/** A configuration problem that stops start-up. The message names the key (or file) and the value. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** The parsed TOML document at `path`. */
export function readDocument(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ConfigError(`config file not found: ${path}`);
    throw new ConfigError(`cannot read config file ${path}: ${(err as Error).message}`);
  }
  try {
    return parse(text) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof TomlError) {
      // smol-toml appends a code excerpt after the first line; the position is enough here.
      const reason = (err.message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '');
      throw new ConfigError(`invalid TOML in ${path} at line ${err.line}, column ${err.column}: ${reason}`);
    }
    throw err;
  }
}
