import { createHash } from 'node:crypto';

/** RFC 8030 §5.4: a Topic is at most 32 characters of the base64url alphabet. */
export const TOPIC_LENGTH = 32;

/**
 * The `Topic` header for a message about `key` (a reminder id): the first 32 base64url
 * characters of its SHA-256 (192 bits), so any id fits, equal ids collapse on the push
 * service, and the id itself is not shown to the push service.
 */
export function pushTopic(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('base64url').slice(0, TOPIC_LENGTH);
}
