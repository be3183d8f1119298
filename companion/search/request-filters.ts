import { DateTime } from 'luxon';
import type { DocumentType } from '../../shared/protocol/search';
import { ApiHttpError } from '../http/api-error';
import type { IndexFilters } from './search-index';

export interface FilterParams {
  type?: DocumentType;
  folder?: string;
  tag?: string;
  from?: string;
  to?: string;
}

/**
 * The index filters for a request's `type`, `folder`, `tag`, `from`, `to`. Dates without a time
 * are whole days in the vault's zone (`to=2026-11-22` includes that day's evening); times
 * without an offset are read in that zone too. Impossible dates (Feb 30) are a 400 naming the field.
 */
export function toIndexFilters(params: FilterParams, timezone: string): IndexFilters {
  const filters: IndexFilters = {};
  if (params.type !== undefined) filters.type = params.type;
  if (params.folder !== undefined) {
    const folder = params.folder.trim().replace(/^\/+|\/+$/g, '');
    if (folder.split('/').includes('..')) {
      throw new ApiHttpError('VALIDATION_ERROR', 'folder must not contain ".." segments', 'folder');
    }
    if (folder !== '') filters.folder = folder;
  }
  if (params.tag !== undefined) filters.tag = params.tag.replace(/^#/, '');
  if (params.from !== undefined) filters.from = instant(params.from, timezone, 'from');
  if (params.to !== undefined) filters.to = instant(params.to, timezone, 'to');
  if (filters.from !== undefined && filters.to !== undefined && filters.from > filters.to) {
    throw new ApiHttpError(
      'VALIDATION_ERROR',
      `from (${params.from}) is after to (${params.to})`,
      'from',
    );
  }
  return filters;
}

function instant(text: string, timezone: string, field: 'from' | 'to'): number {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const parsed = DateTime.fromISO(text.replace(' ', 'T'), { zone: timezone, setZone: false });
  if (!parsed.isValid) {
    throw new ApiHttpError('VALIDATION_ERROR', `${field} is not a real date: ${text}`, field);
  }
  if (!dateOnly) return parsed.toMillis();
  return (field === 'from' ? parsed.startOf('day') : parsed.endOf('day')).toMillis();
}
