/**
 * Pure gate decisions: what an elicitation response means. Only `action: "accept"` with
 * every required boolean field literally `true` approves: a missing `content`, `"true"` as a
 * string, `false`, or any other action does not (a client may send anything; silence or a
 * malformed answer must never count as consent). Reasons quote the field's title, the words the
 * person saw, never its key.
 */
import type { ElicitationOutcome } from '../schemas/trace.js';

export interface BooleanField {
  name: string;
  title: string;
  description: string;
}

export interface StringField {
  name: string;
  title: string;
  description: string;
  maxLength?: number;
}

export interface RequestedSchema {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required: string[];
  [k: string]: unknown;
}

/** A flat form schema: booleans default to false so no client can submit `true` without a choice. */
export function gateSchema(required: BooleanField[], optional: StringField[] = []): RequestedSchema {
  const properties: Record<string, Record<string, unknown>> = {};
  for (const f of required) properties[f.name] = { type: 'boolean', title: f.title, description: f.description, default: false };
  for (const f of optional) {
    properties[f.name] = { type: 'string', title: f.title, description: f.description, ...(f.maxLength ? { maxLength: f.maxLength } : {}) };
  }
  return { type: 'object', properties, required: required.map((f) => f.name) };
}

export function questionSchema(field: StringField): RequestedSchema {
  return {
    type: 'object',
    properties: { [field.name]: { type: 'string', title: field.title, description: field.description, ...(field.maxLength ? { maxLength: field.maxLength } : {}) } },
    required: [field.name],
  };
}

export type ResponseMode =
  /** `optionalStrings`: optional free-text fields and their maximum length (longer or non-string: not approved). */
  | { kind: 'gate'; requiredTrue: string[]; optionalStrings?: Record<string, number> }
  | { kind: 'question'; answerField: string; maxLength: number };

export interface Decision {
  outcome: ElicitationOutcome;
  /** Why it is not approved/answered (null when approved/answered). */
  reason: string | null;
  answer?: string;
}

/** The title of each field of a form schema, by key (what the person saw next to it). */
export function fieldTitles(schema: RequestedSchema): Record<string, string> {
  const titles: Record<string, string> = {};
  for (const [k, v] of Object.entries(schema.properties)) if (typeof v.title === 'string') titles[k] = v.title;
  return titles;
}

/** Normalise a raw elicitation response (as received, unvalidated). `titles` name the fields in reasons. */
export function decide(mode: ResponseMode, response: { action?: unknown; content?: unknown } | null | undefined, titles: Record<string, string> = {}): Decision {
  const label = (f: string) => `"${titles[f] ?? f}"`;
  const action = response?.action;
  if (action === 'decline') return { outcome: 'declined', reason: 'The human declined.' };
  if (action === 'cancel') return { outcome: 'cancelled', reason: 'The human dismissed the form without choosing.' };
  if (action !== 'accept') return { outcome: 'error', reason: `The client sent an unknown action ${JSON.stringify(action)}.` };
  const content = response?.content;
  if (content === undefined || content === null || typeof content !== 'object' || Array.isArray(content)) {
    return { outcome: mode.kind === 'gate' ? 'declined' : 'error', reason: 'The client accepted but sent no form content.' };
  }
  const c = content as Record<string, unknown>;
  if (mode.kind === 'gate') {
    for (const f of mode.requiredTrue) {
      const v = c[f];
      if (v === true) continue;
      if (v === false || v === undefined) return { outcome: 'declined', reason: `${label(f)} was not chosen (${v === undefined ? 'no answer' : 'No/false'}).` };
      return { outcome: 'error', reason: `${label(f)} must be the boolean true, got ${JSON.stringify(v)?.slice(0, 40)} (${typeof v}).` };
    }
    for (const [f, max] of Object.entries(mode.optionalStrings ?? {})) {
      const v = c[f];
      if (v === undefined) continue;
      if (typeof v !== 'string') return { outcome: 'error', reason: `${label(f)} must be text, got ${typeof v}.` };
      if (v.length > max) return { outcome: 'error', reason: `${label(f)} is too long (${v.length} characters; at most ${max}).` };
    }
    return { outcome: 'approved', reason: null };
  }
  const a = c[mode.answerField];
  if (typeof a !== 'string') return { outcome: 'error', reason: `${label(mode.answerField)} must be a string, got ${typeof a}.` };
  if (a.length > mode.maxLength) return { outcome: 'error', reason: `The answer is too long (${a.length} characters; at most ${mode.maxLength}).` };
  if (a.trim() === '') return { outcome: 'error', reason: 'The answer is empty.' };
  return { outcome: 'answered', reason: null, answer: a };
}
