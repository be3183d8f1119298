/**
 * A real Web Push service on 127.0.0.1 for tests, over HTTPS with a throwaway self-signed
 * certificate made by the `openssl` CLI (web-push only speaks HTTPS).
 *
 * It does what a push service does with an incoming message, minus forwarding it to a browser:
 * - checks the VAPID `Authorization: vapid t=<JWT>, k=<key>` header (RFC 8292): ES256 signature
 *   over the given public key, `aud` = this service's origin, `exp` in the future and ≤ 24 h,
 *   a `sub`; a bad one is answered 401, as real services do;
 * - records TTL, Urgency, Topic and Content-Encoding;
 * - decrypts the aes128gcm body (RFC 8291) with `http_ece`, using the subscription's private key
 *   and auth secret, which it made itself (`createSubscription`) as a browser would.
 *
 * Answers are scripted per subscription: 201 by default, or a queue of 404, 410, 429 with
 * Retry-After, 500, any status, `hang` (accept the request and never answer), or `drip` (answer
 * 201 and then send the body one byte every 100 ms, never finishing: alive, but never done).
 */
import { createECDH, createPublicKey, randomBytes, verify } from 'node:crypto';
import type { ECDH } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, createServer } from 'node:https';
import type { Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface HttpEce {
  decrypt(
    buffer: Buffer,
    params: { version: 'aes128gcm'; privateKey: ECDH; authSecret: string },
  ): Buffer;
}
const ece = createRequire(import.meta.url)('http_ece') as HttpEce;

/** A certificate for 127.0.0.1 and its key, PEM, made fresh by `openssl`. */
export interface TestCertificate {
  readonly cert: Buffer;
  readonly key: Buffer;
  readonly certFile: string;
  /** Removes the temporary folder holding the files. */
  remove(): void;
}

export function makeTestCertificate(): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-push-cert-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'pipe' },
  );
  return {
    cert: readFileSync(certFile),
    key: readFileSync(keyFile),
    certFile,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** What a browser would hand to the page: `PushSubscription.toJSON()`. */
export interface BrowserSubscription {
  readonly endpoint: string;
  readonly keys: { readonly p256dh: string; readonly auth: string };
}

export type ScriptedAnswer =
  | { readonly status: number; readonly retryAfter?: string; readonly body?: string }
  | { readonly hang: true }
  | { readonly drip: true };

export interface VapidCheck {
  readonly valid: boolean;
  /** Why not, when not valid. */
  readonly problem?: string;
  readonly publicKey?: string;
  readonly claims?: { aud?: unknown; exp?: unknown; sub?: unknown };
}

export interface ReceivedMessage {
  /** Which subscription (the last path segment of its endpoint). */
  readonly subscription: string;
  readonly ttl: string | undefined;
  readonly urgency: string | undefined;
  readonly topic: string | undefined;
  readonly contentEncoding: string | undefined;
  readonly vapid: VapidCheck;
  /** The decrypted payload, or null when it did not decrypt (see `decryptError`). */
  readonly payload: string | null;
  readonly decryptError?: string;
  /** The status answered (undefined while hanging). */
  readonly answered: number | undefined;
  /** Clock time of arrival (Date.now()). */
  readonly at: number;
}

interface Receiver {
  readonly ecdh: ECDH;
  readonly auth: string;
  readonly script: ScriptedAnswer[];
}

/** RFC 8292 §2: `exp` no more than 24 hours ahead. */
const MAX_VAPID_LIFETIME_S = 24 * 60 * 60;

export class FakePushService {
  readonly messages: ReceivedMessage[] = [];
  private readonly receivers = new Map<string, Receiver>();
  private readonly sockets = new Set<Socket>();
  private readonly hanging = new Set<ServerResponse>();
  private readonly drips = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly server: Server,
    readonly origin: string,
    /** An https.Agent that trusts this service's certificate (and only that). */
    readonly agent: Agent,
    private readonly certificate: TestCertificate,
  ) {}

  static async start(): Promise<FakePushService> {
    const certificate = makeTestCertificate();
    const server = createServer({ cert: certificate.cert, key: certificate.key });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const agent = new Agent({ ca: certificate.cert, keepAlive: false });
    const service = new FakePushService(server, `https://127.0.0.1:${port}`, agent, certificate);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => service.handle(req, res));
    // Every TCP connection, also one still in its TLS handshake (a sender killed mid-handshake):
    // close() must not wait for any of them.
    for (const event of ['connection', 'secureConnection'] as const) {
      server.on(event, (socket: Socket) => {
        service.sockets.add(socket);
        socket.on('close', () => service.sockets.delete(socket));
      });
    }
    return service;
  }

  /** Requests held open right now (`hang`, `drip`): 0 once the sender has given up on them. */
  get openRequests(): number {
    return this.hanging.size;
  }

  /** PEM file of this service's self-signed certificate, e.g. for NODE_EXTRA_CA_CERTS. */
  get certFile(): string {
    return this.certificate.certFile;
  }

  /** A new subscription as a browser would make it: P-256 key pair + 16-byte auth secret. */
  createSubscription(): BrowserSubscription {
    const id = randomBytes(12).toString('base64url');
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const auth = randomBytes(16).toString('base64url');
    this.receivers.set(id, { ecdh, auth, script: [] });
    return {
      endpoint: `${this.origin}/push/v2/${id}`,
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth },
    };
  }

  /** Answers the next messages to `endpoint` in this order; after the queue, 201. */
  script(endpoint: string, ...answers: ScriptedAnswer[]): void {
    this.receiver(endpoint).script.push(...answers);
  }

  /** Messages received for one subscription. */
  messagesFor(endpoint: string): ReceivedMessage[] {
    const id = idOf(endpoint);
    return this.messages.filter((message) => message.subscription === id);
  }

  async close(): Promise<void> {
    for (const timer of this.drips) clearInterval(timer);
    for (const response of this.hanging) response.destroy();
    for (const socket of this.sockets) socket.destroy();
    this.agent.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.certificate.remove();
  }

  private receiver(endpoint: string): Receiver {
    const receiver = this.receivers.get(idOf(endpoint));
    if (!receiver) throw new Error(`fake push service: no subscription for ${endpoint}`);
    return receiver;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => this.receive(req, res, Buffer.concat(chunks)));
  }

  private receive(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const id = idOf(req.url ?? '');
    const receiver = this.receivers.get(id);
    const header = (name: string): string | undefined => {
      const value = req.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const vapid = checkVapid(header('authorization'), this.origin);
    let payload: string | null = null;
    let decryptError: string | undefined;
    if (receiver) {
      try {
        payload = decryptPushBody(body, receiver.ecdh, receiver.auth);
      } catch (error) {
        decryptError = (error as Error).message;
      }
    }
    const scripted = receiver?.script.shift();
    let answer: ScriptedAnswer;
    if (!receiver) answer = { status: 404 };
    else if (req.method !== 'POST') answer = { status: 405 };
    else if (header('ttl') === undefined) answer = { status: 400, body: 'TTL header missing' };
    else if (!vapid.valid) answer = { status: 401, body: vapid.problem ?? 'bad VAPID' };
    else answer = scripted ?? { status: 201 };

    this.messages.push({
      subscription: id,
      ttl: header('ttl'),
      urgency: header('urgency'),
      topic: header('topic'),
      contentEncoding: header('content-encoding'),
      vapid,
      payload,
      ...(decryptError !== undefined ? { decryptError } : {}),
      answered: 'hang' in answer ? undefined : 'drip' in answer ? 201 : answer.status,
      at: Date.now(),
    });

    if ('hang' in answer || 'drip' in answer) {
      this.hanging.add(res);
      if ('drip' in answer) {
        res.writeHead(201, { 'content-type': 'text/plain' });
        const timer = setInterval(() => res.write('.'), 100);
        this.drips.add(timer);
        res.on('close', () => {
          clearInterval(timer);
          this.drips.delete(timer);
        });
      }
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    res.statusCode = answer.status;
    if (answer.retryAfter !== undefined) res.setHeader('Retry-After', answer.retryAfter);
    if (answer.status === 201)
      res.setHeader('Location', `${this.origin}/message/${randomBytes(8).toString('hex')}`);
    res.end(answer.body ?? '');
  }
}

function idOf(endpointOrPath: string): string {
  const path = endpointOrPath.startsWith('https://')
    ? new URL(endpointOrPath).pathname
    : endpointOrPath;
  return path.split('/').pop() ?? '';
}

/** RFC 8291: decrypts an aes128gcm push message body with the receiver's key pair and auth secret. */
export function decryptPushBody(body: Buffer, receiverKey: ECDH, authSecret: string): string {
  return ece
    .decrypt(body, { version: 'aes128gcm', privateKey: receiverKey, authSecret })
    .toString('utf8');
}

/** RFC 8292 §3: `vapid t=<JWT>, k=<base64url P-256 public key>`. */
export function checkVapid(authorization: string | undefined, origin: string): VapidCheck {
  if (authorization === undefined) return { valid: false, problem: 'no Authorization header' };
  const match = /^vapid\s+t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization.trim());
  if (!match) return { valid: false, problem: 'Authorization is not "vapid t=…, k=…"' };
  const [, token = '', publicKey = ''] = match;
  const parts = token.split('.');
  if (parts.length !== 3)
    return { valid: false, problem: 'JWT does not have three parts', publicKey };
  const [headerPart = '', claimsPart = '', signaturePart = ''] = parts;
  let header: { alg?: unknown; typ?: unknown };
  let claims: { aud?: unknown; exp?: unknown; sub?: unknown };
  try {
    header = JSON.parse(Buffer.from(headerPart, 'base64url').toString('utf8')) as typeof header;
    claims = JSON.parse(Buffer.from(claimsPart, 'base64url').toString('utf8')) as typeof claims;
  } catch {
    return { valid: false, problem: 'JWT header or claims are not JSON', publicKey };
  }
  const fail = (problem: string): VapidCheck => ({ valid: false, problem, publicKey, claims });
  if (header.alg !== 'ES256') return fail(`JWT alg is ${String(header.alg)}, not ES256`);
  const point = Buffer.from(publicKey, 'base64url');
  if (point.length !== 65 || point[0] !== 4) return fail('k is not an uncompressed P-256 point');
  let key;
  try {
    key = createPublicKey({
      key: {
        kty: 'EC',
        crv: 'P-256',
        x: point.subarray(1, 33).toString('base64url'),
        y: point.subarray(33).toString('base64url'),
      },
      format: 'jwk',
    });
  } catch {
    return fail('k is not on the P-256 curve');
  }
  const signature = Buffer.from(signaturePart, 'base64url');
  const signed = Buffer.from(`${headerPart}.${claimsPart}`, 'ascii');
  if (!verify('sha256', signed, { key, dsaEncoding: 'ieee-p1363' }, signature)) {
    return fail('JWT signature does not verify with k');
  }
  if (claims.aud !== origin) return fail(`JWT aud is ${String(claims.aud)}, not ${origin}`);
  const nowS = Math.floor(Date.now() / 1000);
  if (typeof claims.exp !== 'number' || claims.exp <= nowS)
    return fail('JWT exp is missing or past');
  if (claims.exp > nowS + MAX_VAPID_LIFETIME_S) return fail('JWT exp is more than 24 h ahead');
  if (typeof claims.sub !== 'string' || !/^(mailto:|https:)/.test(claims.sub)) {
    return fail('JWT sub is not a mailto: or https: contact');
  }
  return { valid: true, publicKey, claims };
}
