import { join } from 'node:path';
import { toString as qrToString } from 'qrcode';
import { checkDeviceName } from '../../shared/settings/validation';
import { checkHttpUrl } from '../../shared/settings/validation';
import { TokenStore } from '../auth/token-store';
import { openDatabase } from '../db/open';
import { DATABASE_FILE } from '../server';
import { pairDevice } from '../sync';

export const PAIR_USAGE = `Usage:
  cairn-companion pair --name DEVICE [--url https://ADDRESS] --vault <path> [--data <path>]

Makes a token for one device (scopes read, write, sync; named sync-DEVICE, revoke it with
"cairn-companion token revoke sync-DEVICE") and prints the pairing link and its QR code. On the
device: scan the code (it opens Obsidian), or run "Cairn: Pair this device with the companion"
and paste the link. --url is the address the device reaches the companion at; use HTTPS (Tailscale:
"tailscale serve --bg 8787"; or a reverse proxy such as Caddy). Default: the companion's own
--host and --port.
`;

export interface PairCommandIo {
  out(text: string): void;
  err(text: string): void;
  now(): number;
}

/** `cairn-companion pair` (docs/sync.md "Pairing"): 0 done, 1 refused, 2 usage. */
export async function runPairCommand(
  flags: { name?: string; url?: string },
  config: { dataDir: string; host: string; port: number; tls: unknown },
  io: PairCommandIo,
): Promise<number> {
  const usage = (problem: string) => {
    io.err(`cairn-companion pair: ${problem}\n${PAIR_USAGE}`);
    return 2;
  };
  if (flags.name === undefined) return usage('needs --name DEVICE (e.g. --name "Pixel 8")');
  const device = checkDeviceName(flags.name);
  if (!device.ok || device.name === '') {
    return usage(`--name: ${device.ok ? 'empty' : device.message}`);
  }
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const given = flags.url ?? `${config.tls ? 'https' : 'http'}://${host}:${config.port}`;
  const url = checkHttpUrl(given);
  if (!url.ok) return usage(`--url: ${url.message}`);

  const db = openDatabase(join(config.dataDir, DATABASE_FILE));
  try {
    const paired = await pairDevice(
      new TokenStore(db),
      { device: device.name, url: url.url },
      io.now(),
    );
    const qr = await qrToString(paired.link, { type: 'terminal', small: true });
    io.out(
      [
        `Pairing "${paired.device}" with ${paired.url} (token "${paired.tokenName}": read, write, sync).`,
        '',
        'On the device, scan this code with the camera (it opens Obsidian), or copy the link into',
        '"Cairn: Pair this device with the companion". The link holds the token: show it to that device only.',
        '',
        qr,
        paired.link,
        '',
        ...(paired.warning !== undefined ? [`Warning: ${paired.warning}`, ''] : []),
      ].join('\n'),
    );
    return 0;
  } finally {
    db.close();
  }
}
