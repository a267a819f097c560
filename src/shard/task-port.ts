/**
 * The shard's end of the router's channel for decodes, writes and queries
 * (src/router/shard-port.ts): each task is run by the same handler Piscina calls, and answered on
 * the port with the reply Piscina would have sent, transferring what the handler marked movable.
 * Every task gets an answer: a reply that cannot be sent is answered with the error instead, or
 * the router's request would wait forever.
 */
import type { MessagePort, TransferListItem } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { toWire } from '../shared/errors.js';
import type { PortAnswer, PortTask, ShardReply, ShardTask } from '../shared/messages.js';

type Handler = (task: ShardTask) => Promise<ShardReply>;

/** A handler's result unwrapped from Piscina's movable wrapper, with what it transfers. */
function unwrapped(result: ShardReply): { reply: ShardReply; transfer: TransferListItem[] } {
  const moved = result as unknown as Record<symbol, unknown>;
  const value = moved[Piscina.valueSymbol];
  if (value === undefined) return { reply: result, transfer: [] };
  return { reply: value as ShardReply, transfer: (moved[Piscina.transferableSymbol] as TransferListItem[]) ?? [] };
}

/** `onLost`: a task that could not be deserialised here (it cannot be answered: its id is lost). */
export function serveTaskPort(
  port: MessagePort,
  handle: Handler,
  onLost: (err: Error) => void = () => undefined,
): void {
  port.on('messageerror', onLost);
  port.on('message', ({ id, task }: PortTask) => {
    handle(task).then(
      (result) => answer(port, id, result),
      (err: unknown) => answer(port, id, { ok: false, error: toWire(err) }),
    );
  });
}

function answer(port: MessagePort, id: number, result: ShardReply): void {
  const { reply, transfer } = unwrapped(result);
  try {
    port.postMessage({ id, reply } satisfies PortAnswer, transfer);
  } catch (err) {
    port.postMessage({ id, reply: { ok: false, error: toWire(err) } } satisfies PortAnswer);
  }
}
