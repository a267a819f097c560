/**
 * A ScanSource over plain rows, for tests of plan fragments without storage. Rows are served in
 * the order given, in chunks of `chunkRows`; pruning hints are ignored (they are only hints).
 */
import type { ScanChunk, ScanRequest, ScanSource } from '../../../../src/shared/scan.js';
import { allocValues, type TableSchema, type Vector } from '../../../../src/shared/types.js';

export type Row = Record<string, number | bigint | boolean | string | null>;

export function arraySource(table: TableSchema, rows: Row[], chunkRows = 3): ScanSource {
  return {
    *scan(request: ScanRequest): Iterable<ScanChunk> {
      for (let start = 0; start < rows.length; start += chunkRows) {
        const part = rows.slice(start, start + chunkRows);
        const vectors = request.columns.map((c): Vector => {
          const column =
            c.role === 'time'
              ? table.columns.find((x) => x.name === table.timeIndex)
              : table.columns.find((x) => x.id === c.id);
          const values = allocValues(c.kind, part.length);
          const valid = new Uint8Array(part.length).fill(1);
          part.forEach((row, i) => {
            let v = row[column?.name ?? ''] ?? null;
            if (v !== null && c.kind === 'str') v = String(v);
            if (v === null) valid[i] = 0;
            else if (c.kind === 'bool') (values as Uint8Array)[i] = v ? 1 : 0;
            else (values as unknown as Array<unknown>)[i] = v;
          });
          return { kind: c.kind, values, valid } as Vector;
        });
        yield { rowCount: part.length, vectors };
      }
    },
  };
}
