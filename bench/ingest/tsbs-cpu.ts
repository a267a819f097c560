/**
 * TSBS "devops cpu"-shaped line protocol: 10 tags, 10 float fields, one row per host every 10 s.
 * Batches are generated up front so the load loop measures the server, not the generator.
 */

export const REGIONS = [
  'us-east-1',
  'us-west-1',
  'us-west-2',
  'eu-west-1',
  'eu-central-1',
  'ap-southeast-1',
  'ap-southeast-2',
  'ap-northeast-1',
  'sa-east-1',
];
const OS = ['Ubuntu16.04LTS', 'Ubuntu16.10', 'Ubuntu15.10'];
const ARCH = ['x64', 'x86'];
const TEAM = ['SF', 'NYC', 'LON', 'CHI'];
const ENV = ['production', 'staging', 'test'];
/** The 10 `cpu` metrics, in TSBS order. */
export const FIELDS = [
  'usage_user',
  'usage_system',
  'usage_idle',
  'usage_nice',
  'usage_iowait',
  'usage_irq',
  'usage_softirq',
  'usage_steal',
  'usage_guest',
  'usage_guest_nice',
];

export const FIELDS_PER_ROW = FIELDS.length;
export const START_NS = 1_451_606_400_000_000_000n; // 2016-01-01, as TSBS

/** Tag set of host `h`, already in line-protocol form. Deterministic per host. */
function hostTags(h: number): string {
  const region = REGIONS[h % REGIONS.length] as string;
  return (
    `hostname=host_${h},region=${region},datacenter=${region}${String.fromCharCode(97 + (h % 3))},rack=${h % 100},` +
    `os=${OS[h % OS.length]},arch=${ARCH[h % ARCH.length]},team=${TEAM[h % TEAM.length]},service=${h % 20},` +
    `service_version=${h % 2},service_environment=${ENV[h % ENV.length]}`
  );
}

/**
 * `batches` bodies of `rowsPerBatch` rows. Rows walk through the hosts; when every host has had
 * a row, time advances 10 s — so the whole set is `hosts` series with consecutive timestamps.
 */
export function generateBatches(hosts: number, rowsPerBatch: number, batches: number): Buffer[] {
  const tags = Array.from({ length: hosts }, (_, h) => `cpu,${hostTags(h)} `);
  const out: Buffer[] = [];
  let row = 0;
  let seed = 42;
  const rand = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return (seed % 10000) / 100;
  };
  for (let b = 0; b < batches; b++) {
    const lines: string[] = new Array(rowsPerBatch);
    for (let i = 0; i < rowsPerBatch; i++, row++) {
      const host = row % hosts;
      const ts = START_NS + BigInt(Math.floor(row / hosts)) * 10_000_000_000n;
      let fields = '';
      for (let f = 0; f < FIELDS.length; f++) fields += `${f === 0 ? '' : ','}${FIELDS[f]}=${rand()}`;
      lines[i] = `${tags[host]}${fields} ${ts}`;
    }
    out.push(Buffer.from(lines.join('\n')));
  }
  return out;
}
