/**
 * An OTLP request that cannot be stored at all (undecodable, or breaking a rule of the protocol
 * such as a metric without a name): nothing of it is written. Decoding runs in a shard, which
 * hands the message back; the router answers it as OTLP's 400 `google.rpc.Status`.
 */
export class OtlpMalformed extends Error {}
