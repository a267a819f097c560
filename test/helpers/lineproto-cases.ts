/** Loads shared/conformance/lineproto/cases.json (beside the checkout) for the conformance runners. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CASES_FILE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../shared/conformance/lineproto/cases.json',
);

export interface CaseField {
  type: 'float' | 'integer' | 'uinteger' | 'string' | 'boolean';
  value: number | string | boolean;
}

export interface CasePoint {
  measurement: string;
  tags: Record<string, string>;
  fields: Record<string, CaseField>;
  timestamp: string | null;
}

export interface LineprotoCase {
  id: string;
  category: string;
  precision?: string;
  input: string;
  expect: { result: 'ok'; points: CasePoint[] } | { result: 'error'; line: number; reason: string };
}

export function loadLineprotoCases(): LineprotoCase[] {
  return (JSON.parse(fs.readFileSync(CASES_FILE, 'utf8')) as { cases: LineprotoCase[] }).cases;
}
