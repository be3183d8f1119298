import type { Static, TSchema } from '@sinclair/typebox';
import { Value, ValueErrorType } from '@sinclair/typebox/value';
import type { ValueError } from '@sinclair/typebox/value';

/** Why a value failed its schema: the first problem found, named by its dotted field path. */
export interface SchemaViolation {
  /** `keys.p256dh`, `tags[2]`, or `''` for the value as a whole. */
  field: string;
  message: string;
}

export type SchemaCheck<T> = { ok: true; value: T } | { ok: false; violation: SchemaViolation };

/**
 * Checks `value` against `schema` with TypeBox's interpreter (`Value.Check`), never the code
 * generating `TypeCompiler`: the plugin runs on Obsidian mobile, where generated code is off-limits.
 * Returns the first violation, phrased for a person.
 */
export function checkSchema<T extends TSchema>(schema: T, value: unknown): SchemaCheck<Static<T>> {
  if (Value.Check(schema, value)) return { ok: true, value: value as Static<T> };
  const first = Value.Errors(schema, value).First();
  if (first === undefined) return { ok: false, violation: { field: '', message: 'invalid value' } };
  return { ok: false, violation: describeViolation(first) };
}

/** `/keys/p256dh` → `keys.p256dh`; `/tags/2` → `tags[2]`. */
export function pointerToField(pointer: string): string {
  if (pointer === '') return '';
  let field = '';
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(segment)) field += `[${segment}]`;
    else field += field === '' ? segment : `.${segment}`;
  }
  return field;
}

function describeViolation(error: ValueError): SchemaViolation {
  const field = pointerToField(error.path);
  const description = (error.schema as { description?: unknown }).description;
  let message: string;
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      message = 'is required';
      break;
    case ValueErrorType.ObjectAdditionalProperties:
      message = 'is not an allowed property';
      break;
    case ValueErrorType.StringPattern:
    case ValueErrorType.StringFormat:
      message =
        typeof description === 'string'
          ? `must be ${description}`
          : `does not have the expected format`;
      break;
    default:
      message = plainBound(error) ?? lowerFirst(error.message);
  }
  return { field, message: field === '' ? message : `${field} ${message}` };
}

/**
 * Type and bound violations in words a person reads ("minutes must be at least 1"), not
 * TypeBox's ("expected integer to be greater or equal to 1"): MCP and OpenAI clients show them
 * to the user as they are.
 */
function plainBound(error: ValueError): string | undefined {
  const schema = error.schema as Record<string, unknown>;
  const bound = (key: string) => (typeof schema[key] === 'number' ? String(schema[key]) : '?');
  switch (error.type) {
    case ValueErrorType.Integer:
      return 'must be a whole number';
    case ValueErrorType.Number:
      return 'must be a number';
    case ValueErrorType.String:
      return 'must be text';
    case ValueErrorType.Boolean:
      return 'must be true or false';
    case ValueErrorType.Array:
      return 'must be a list';
    case ValueErrorType.Object:
      return 'must be an object';
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `must be at least ${bound('minimum')}`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `must be at most ${bound('maximum')}`;
    case ValueErrorType.IntegerExclusiveMinimum:
    case ValueErrorType.NumberExclusiveMinimum:
      return `must be more than ${bound('exclusiveMinimum')}`;
    case ValueErrorType.IntegerExclusiveMaximum:
    case ValueErrorType.NumberExclusiveMaximum:
      return `must be less than ${bound('exclusiveMaximum')}`;
    case ValueErrorType.StringMinLength:
      return schema.minLength === 1
        ? 'must not be empty'
        : `must be at least ${bound('minLength')} characters long`;
    case ValueErrorType.StringMaxLength:
      return `must be at most ${bound('maxLength')} characters long`;
    case ValueErrorType.ArrayMinItems:
      return `must hold at least ${items(bound('minItems'))}`;
    case ValueErrorType.ArrayMaxItems:
      return `must hold at most ${items(bound('maxItems'))}`;
    default:
      return undefined;
  }
}

function items(count: string): string {
  return count === '1' ? '1 item' : `${count} items`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
