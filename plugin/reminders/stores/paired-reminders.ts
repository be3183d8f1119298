/**
 * Which reminder store the chat uses (docs/delivery.md): the companion's API while one is paired, so it
 * schedules the reminder at once and the phone sees it; the vault's reminder notes when none is
 * paired. When the paired companion does not answer (network error, timeout), writes go into
 * the vault instead and the result says so: the note syncs to the companion, which schedules it
 * from there. An answer from the companion, a refusal included, is never second-guessed.
 *
 * Undo follows the same rule. Undo of a create the companion does not know (written into the
 * vault while it was away, not synced yet) is tried in the vault.
 */
import {
  ChatPortError,
  type ReminderQuery,
  type ReminderReader,
  type ReminderWriter,
  type WriteNotice,
} from '../../../shared/chat/ports';
import type { Clock } from '../../../shared/ports';
import type { Reminder } from '../../../shared/protocol/reminders';
import { CompanionUnreachableError, type CompanionReminders } from './companion-reminders';

type Store = ReminderReader & ReminderWriter;

/**
 * After the companion failed to answer, the next calls go straight to the vault for this long:
 * one chat turn makes up to three calls (find, then write), each of which would wait for the
 * transport's timeout again.
 */
export const UNREACHABLE_MEMORY_MS = 30_000;

export class PairedReminders implements ReminderReader, ReminderWriter {
  private away: { error: CompanionUnreachableError; until: number } | undefined;

  constructor(
    private readonly companion: CompanionReminders,
    private readonly vault: Store,
    private readonly clock: Clock,
  ) {}

  list(query: ReminderQuery): Promise<Reminder[]> {
    return this.either((store) => store.list(query)).then(({ value }) => value);
  }

  get(id: string): Promise<Reminder | undefined> {
    return this.either((store) => store.get(id)).then(({ value }) => value);
  }

  async create(input: Parameters<ReminderWriter['create']>[0]) {
    const { value, away } = await this.either((store) => store.create(input));
    return withNotice(value, away, 'the reminder was written into this vault instead');
  }

  async snooze(id: string, minutes: number) {
    const { value, away } = await this.either((store) => store.snooze(id, minutes));
    return withNotice(value, away, 'the snooze was written into the reminder note instead');
  }

  async complete(id: string) {
    const { value, away } = await this.either((store) => store.complete(id));
    return withNotice(value, away, 'the reminder note was marked done in this vault instead');
  }

  async delete(id: string): Promise<void | WriteNotice> {
    if (!this.companion.isPaired()) return this.vault.delete(id);
    try {
      const recent = this.recentlyAway();
      if (recent !== undefined) throw recent;
      return await this.companion.delete(id);
    } catch (error) {
      if (error instanceof CompanionUnreachableError) {
        this.rememberAway(error);
        await this.vault.delete(id);
        return { notice: unreachableNotice(error, 'the reminder note was moved to the trash') };
      }
      // Written into the vault while the companion was away, and not synced to it yet.
      if (error instanceof ChatPortError && error.code === 'NOT_FOUND') {
        return this.vault.delete(id);
      }
      throw error;
    }
  }

  async restore(previous: Reminder): Promise<void | WriteNotice> {
    const { away } = await this.either((store) => store.restore(previous));
    return away === undefined
      ? undefined
      : { notice: unreachableNotice(away, 'the reminder note was changed back in this vault') };
  }

  /** Runs `work` against the companion when paired, else (or when it is unreachable) the vault. */
  private async either<T>(
    work: (store: Store) => Promise<T>,
  ): Promise<{ value: T; away?: CompanionUnreachableError }> {
    if (!this.companion.isPaired()) return { value: await work(this.vault) };
    const recent = this.recentlyAway();
    if (recent !== undefined) return { value: await work(this.vault), away: recent };
    try {
      const value = await work(this.companion);
      this.away = undefined;
      return { value };
    } catch (error) {
      if (!(error instanceof CompanionUnreachableError)) throw error;
      this.rememberAway(error);
      return { value: await work(this.vault), away: error };
    }
  }

  private recentlyAway(): CompanionUnreachableError | undefined {
    if (this.away === undefined || this.clock.now() >= this.away.until) return undefined;
    return this.away.error;
  }

  private rememberAway(error: CompanionUnreachableError): void {
    this.away = { error, until: this.clock.now() + UNREACHABLE_MEMORY_MS };
  }
}

function withNotice(
  reminder: Reminder & WriteNotice,
  away: CompanionUnreachableError | undefined,
  what: string,
): Reminder & WriteNotice {
  return away === undefined ? reminder : { ...reminder, notice: unreachableNotice(away, what) };
}

function unreachableNotice(away: CompanionUnreachableError, what: string): string {
  return `The companion could not be reached (${away.message}), so ${what}; the companion picks the change up once the vault syncs.`;
}
