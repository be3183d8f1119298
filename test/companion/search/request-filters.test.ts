import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../../companion/http/cursor';
import { toIndexFilters } from '../../../companion/search/request-filters';

describe('toIndexFilters', () => {
  it('reads whole days in the vault zone', () => {
    const filters = toIndexFilters({ from: '2026-11-22', to: '2026-11-22' }, 'Europe/Berlin');
    expect(filters.from).toBe(Date.parse('2026-11-21T23:00:00Z'));
    expect(filters.to).toBe(Date.parse('2026-11-22T22:59:59.999Z'));
  });

  it('reads date-times with and without offsets', () => {
    expect(toIndexFilters({ from: '2026-11-22T10:00' }, 'Europe/Berlin').from).toBe(
      Date.parse('2026-11-22T09:00:00Z'),
    );
    expect(toIndexFilters({ from: '2026-11-22T10:00:00Z' }, 'Europe/Berlin').from).toBe(
      Date.parse('2026-11-22T10:00:00Z'),
    );
  });

  it('normalises folder and tag', () => {
    expect(toIndexFilters({ folder: '/Travel/', tag: '#visa', type: 'note' }, 'UTC')).toEqual({
      folder: 'Travel',
      tag: 'visa',
      type: 'note',
    });
  });

  it('rejects impossible dates, reversed ranges and .. in folders, naming the field', () => {
    expect(() => toIndexFilters({ from: '2026-02-30' }, 'UTC')).toThrow(
      expect.objectContaining({ field: 'from', statusCode: 400 }),
    );
    expect(() => toIndexFilters({ from: '2026-11-23', to: '2026-11-22' }, 'UTC')).toThrow(/after/);
    expect(() => toIndexFilters({ folder: 'a/../b' }, 'UTC')).toThrow(
      expect.objectContaining({ field: 'folder' }),
    );
  });
});

describe('search cursors', () => {
  it('round-trip the offset for the same query', () => {
    expect(decodeCursor(encodeCursor(20, 'q'), 'q')).toBe(20);
  });

  it('refuse foreign or forged cursors', () => {
    expect(() => decodeCursor(encodeCursor(20, 'q'), 'other')).toThrow(/different query/);
    expect(() => decodeCursor('garbage', 'q')).toThrow(
      expect.objectContaining({ field: 'cursor' }),
    );
  });
});
