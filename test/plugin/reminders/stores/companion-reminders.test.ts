import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CompanionReminders } from '../../../../plugin/reminders/stores/companion-reminders';
import {
  PairedReminders,
  UNREACHABLE_MEMORY_MS,
} from '../../../../plugin/reminders/stores/paired-reminders';
import { VaultReminders } from '../../../../plugin/reminders/stores/vault-reminders';
import type { CompanionEndpoint } from '../../../../plugin/connection/client';
import { ChatEngine, type UndoAction } from '../../../../shared/chat/chat-engine';
import type { ToolResult } from '../../../../shared/chat/tool-schemas';
import type { ChatEvent } from '../../../../shared/protocol/chat';
import { ManualClock } from '../../../fakes/clock';
import { NodeHttpTransport } from '../../../helpers/node-http-transport';
import { FakeVault } from '../../../shared/chat/fake-chat-ports';
import { countingBytes, MemoryVaultFiles } from '../../chat/memory-vault-files';
import { ReminderApiServer } from './reminder-api-server';

const ZONE = 'Europe/Berlin';
const TOKEN = 'secret-token';

let clock: ManualClock;
let server: ReminderApiServer;
let url: string;
let endpoint: CompanionEndpoint;
let transport: NodeHttpTransport;
let files: MemoryVaultFiles;
let companion: CompanionReminders;
let reminders: PairedReminders;
let engine: ChatEngine;

beforeEach(async () => {
  clock = ManualClock.at('2026-11-22T09:30:00Z'); // Sunday 10:30 in Berlin
  server = new ReminderApiServer(TOKEN, clock);
  url = await server.start();
  endpoint = { url, token: TOKEN, offlineMode: true };
  transport = new NodeHttpTransport();
  files = new MemoryVaultFiles();
  companion = new CompanionReminders(transport, () => endpoint, clock);
  const vault = new VaultReminders({
    files,
    clock,
    zone: () => ZONE,
    remindersFolder: () => 'Reminders',
    randomBytes: countingBytes(),
  });
  reminders = new PairedReminders(companion, vault, clock);
  const other = new FakeVault(clock);
  engine = new ChatEngine({
    clock,
    zone: () => ZONE,
    notes: other,
    reminderReader: reminders,
    reminderWriter: reminders,
    searcher: other,
    answerer: other,
  });
});

afterEach(async () => {
  await server.stop();
});

async function run(message: string): Promise<{ text: string; result: ToolResult | undefined }> {
  const events: ChatEvent[] = [];
  for await (const event of engine.send(message)) events.push(event);
  const text = events.map((e) => (e.type === 'token' ? e.text : '')).join('');
  const tool = events.find((e) => e.type === 'tool');
  return { text, result: tool?.type === 'tool' ? tool.result : undefined };
}

function undoOf(result: ToolResult | undefined): UndoAction {
  if (result === undefined || !result.success) throw new Error('no successful tool result');
  return (result.data as { undo: UndoAction }).undo;
}

/** A URL where nothing listens: the port of a server that was started and stopped. */
async function deadUrl(): Promise<string> {
  const gone = new ReminderApiServer(TOKEN, clock);
  const address = await gone.start();
  await gone.stop();
  return address;
}

describe('CompanionReminders through the chat while paired', () => {
  it('sets the reminder on the companion (nothing in the vault) and undo cancels it there', async () => {
    const set = await run('remind me tomorrow at 17:00 to call the bank');
    expect(set.text).toBe('Reminder set: "Call the bank", Mon 23 Nov 2026, 17:00.');
    expect(server.seen).toContain('POST /api/v1/reminders');
    expect(files.files.size).toBe(0);
    const [stored] = [...server.reminders.values()];
    expect(stored).toMatchObject({
      title: 'Call the bank',
      due: '2026-11-23T17:00:00+01:00',
      timezone: ZONE,
      status: 'active',
    });
    expect(set.result).toMatchObject({ success: true, data: { reminder: { id: stored!.id } } });
    expect((set.result as { data: object }).data).not.toHaveProperty('notice');

    const undone = await engine.undo(undoOf(set.result));
    expect(undone).toMatchObject({
      success: true,
      data: { undone: 'delete_reminder', notice: expect.stringContaining('cancelled') },
    });
    expect(server.reminders.get(stored!.id)?.status).toBe('cancelled');
  });

  it('lists, snoozes and completes on the companion; undo puts status and time back', async () => {
    await run('remind me today at 11:00 to water the plants');
    const id = [...server.reminders.keys()][0]!;
    expect((await run("what's due this week?")).text).toContain('Water the plants');

    const snoozed = await run('snooze the plants reminder for an hour');
    expect(snoozed.text).toBe('Snoozed "Water the plants" until Sun 22 Nov 2026, 11:30.');
    expect(server.reminders.get(id)?.snoozed_until).toBe('2026-11-22T11:30:00+01:00');
    expect(await engine.undo(undoOf(snoozed.result))).toMatchObject({ success: true });
    expect(server.reminders.get(id)).toMatchObject({
      snoozed_until: null,
      due: '2026-11-22T11:00:00+01:00',
    });

    const done = await run('mark water the plants as done');
    expect(server.reminders.get(id)?.status).toBe('done');
    expect(await engine.undo(undoOf(done.result))).toMatchObject({ success: true });
    expect(server.reminders.get(id)?.status).toBe('active');
    expect(files.files.size).toBe(0);
  });

  it('undo of a snooze that replaced an earlier snooze brings the earlier one back', async () => {
    const created = await companion.create({
      title: 'Stretch',
      due: '2026-11-22T11:00',
      timezone: ZONE,
    });
    await companion.snooze(created.id, 120); // 12:30 Berlin
    const before = (await companion.get(created.id))!;
    await companion.snooze(created.id, 15);
    await companion.restore(before);
    expect(server.reminders.get(created.id)?.snoozed_until).toBe('2026-11-22T12:30:00+01:00');
  });

  it('says undo of done on a repeating reminder cannot be taken back from here', async () => {
    const created = await companion.create({
      title: 'Standup',
      due: '2026-11-23T09:30',
      timezone: ZONE,
      repeat: 'FREQ=WEEKLY;BYDAY=MO',
    });
    await companion.complete(created.id);
    await expect(companion.restore(created)).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('delivery state'),
    });
  });

  it('shows a 4xx from the companion with its field and does not write the vault', async () => {
    await expect(
      reminders.create({ title: 'Bad', due: '23.11.2026 17:00', timezone: ZONE }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', field: 'due' });
    server.override = (method) =>
      method === 'POST'
        ? {
            status: 422,
            body: { error: { code: 'UNPROCESSABLE', message: 'due is in the past', field: 'due' } },
          }
        : undefined;
    const refused = await run('remind me tomorrow at 17:00 to call the bank');
    expect(refused.result).toMatchObject({
      success: false,
      error: { code: 'VALIDATION_ERROR', field: 'due', message: 'companion: due is in the past' },
    });
    expect(files.files.size).toBe(0);
  });

  it('a rejected token is an error to show, not a reason to write elsewhere', async () => {
    endpoint = { ...endpoint, token: 'wrong' };
    await expect(
      reminders.create({ title: 'x', due: '2026-11-23T17:00', timezone: ZONE }),
    ).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringContaining('401') });
    expect(files.files.size).toBe(0);
  });

  it('refuses an answer that is not a protocol reminder', async () => {
    server.override = (method) =>
      method === 'POST' ? { status: 201, body: { id: 'x', title: 'no due' } } : undefined;
    await expect(
      reminders.create({ title: 'x', due: '2026-11-23T17:00', timezone: ZONE }),
    ).rejects.toMatchObject({
      code: 'INTERNAL_ERROR',
      message: expect.stringContaining('POST /api/v1/reminders'),
    });
  });

  it('a missing reminder reads as undefined (NOT_FOUND from the API)', async () => {
    expect(await companion.get('nope')).toBeUndefined();
  });
});

describe('falling back to the vault', () => {
  it('writes the vault when the companion does not answer, says so, and undoes there', async () => {
    endpoint = { ...endpoint, url: await deadUrl() };
    const set = await run('remind me tomorrow at 17:00 to call the bank');
    expect(set.text).toMatch(
      /^Reminder set: "Call the bank", Mon 23 Nov 2026, 17:00\.\n\nThe companion could not be reached \(.*\), so the reminder was written into this vault instead/,
    );
    expect(set.result).toMatchObject({
      success: true,
      data: { notice: expect.stringContaining('could not be reached') },
    });
    const path = (set.result as { data: { reminder: { path: string } } }).data.reminder.path;
    expect(files.files.get(path)).toContain('title: Call the bank');

    // Within the memory window the next call skips the network.
    const requests = transport.requests.length;
    const undone = await engine.undo(undoOf(set.result));
    expect(undone).toMatchObject({
      success: true,
      data: { notice: expect.stringContaining('moved to the trash') },
    });
    expect(transport.requests.length).toBe(requests);
    expect(files.trashed).toEqual([path]);
  });

  it('tries the companion again once the memory window has passed', async () => {
    endpoint = { ...endpoint, url: await deadUrl() };
    await reminders.create({ title: 'One', due: '2026-11-23T17:00', timezone: ZONE });
    endpoint = { ...endpoint, url };
    clock.advance(UNREACHABLE_MEMORY_MS);
    const second = await reminders.create({
      title: 'Two',
      due: '2026-11-23T18:00',
      timezone: ZONE,
    });
    expect(second.notice).toBeUndefined();
    expect(server.reminders.get(second.id)?.title).toBe('Two');
  });

  it('a proxy 502 counts as unreachable', async () => {
    server.override = () => ({ status: 502, body: 'Bad Gateway' });
    const created = await reminders.create({ title: 'x', due: '2026-11-23T17:00', timezone: ZONE });
    expect(created.notice).toMatch(/answered 502/);
    expect(files.files.has(created.path)).toBe(true);
  });

  it('undo of a vault-written reminder the companion does not know yet trashes the note', async () => {
    endpoint = { ...endpoint, url: await deadUrl() };
    const created = await reminders.create({ title: 'x', due: '2026-11-23T17:00', timezone: ZONE });
    endpoint = { ...endpoint, url };
    clock.advance(UNREACHABLE_MEMORY_MS);
    await reminders.delete(created.id);
    expect(server.seen).toContain(`DELETE /api/v1/reminders/${created.id}`);
    expect(files.trashed).toEqual([created.path]);
  });

  it('without a token (not paired) uses the vault and asks no one', async () => {
    endpoint = { ...endpoint, token: '' };
    const created = await reminders.create({ title: 'x', due: '2026-11-23T17:00', timezone: ZONE });
    expect(created.notice).toBeUndefined();
    expect(files.files.has(created.path)).toBe(true);
    expect(transport.requests).toEqual([]);
  });

  it('offline mode keeps a public companion URL unpaired', () => {
    endpoint = { url: 'https://cairn.example.com', token: TOKEN, offlineMode: true };
    expect(companion.isPaired()).toBe(false);
    endpoint = { ...endpoint, offlineMode: false };
    expect(companion.isPaired()).toBe(true);
  });
});
