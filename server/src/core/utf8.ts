/**
 * The text of UTF-8 bytes, decoded once per bytes object, and slices of it by byte offsets. Pure.
 * analyze (core/markdown.ts) and buildPlan (core/plan.ts) read the same snapshot bytes, which are
 * never written to; decoding a large file costs more than the slices taken from it.
 */

import { isUtf8 } from 'node:buffer';

/** Keeps a BOM as U+FEFF, as Buffer#toString does. */
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const texts = new WeakMap<Uint8Array, string>();

/** `bytes` decoded (U+FFFD for invalid sequences, a BOM kept), once per bytes object. */
export function utf8Text(bytes: Uint8Array): string {
  let text = texts.get(bytes);
  if (text === undefined) texts.set(bytes, (text = decoder.decode(bytes)));
  return text;
}

/** `bytes` decoded as TextDecoder's default gives them (a leading BOM left out), from the text decoded once. */
export function utf8TextWithoutBom(bytes: Uint8Array): string {
  const text = utf8Text(bytes);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Slices of valid UTF-8 `bytes` by byte offsets, taken from its decoded text instead of decoding each. */
export class Utf8Slicer {
  /** After each multi-byte character: its end (a byte offset) and how many more bytes than UTF-16 units precede it. */
  private readonly ends: number[] = [];
  private readonly extra: number[] = [];
  /** After each multi-byte character: how many continuation bytes precede its end. */
  private readonly more: number[] = [];
  private readonly text: string;

  /** `bytes` must be valid UTF-8 (buffer.isUtf8); `text`, when the caller has it, must be their text. */
  constructor(
    private readonly bytes: Uint8Array,
    text?: string,
  ) {
    this.text = text ?? utf8Text(bytes);
    let extra = 0;
    let more = 0;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!;
      if (b < 0x80) continue;
      // 2 bytes: 1 unit; 3 bytes: 1 unit; 4 bytes: a surrogate pair.
      const len = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      extra += len === 4 ? 2 : len - 1;
      more += len - 1;
      i += len - 1;
      this.ends.push(i + 1);
      this.extra.push(extra);
      this.more.push(more);
    }
  }

  /** How many multi-byte characters end at or before byte offset `at`. */
  private rank(at: number): number {
    let lo = 0;
    let hi = this.ends.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.ends[mid]! <= at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The UTF-16 index of byte offset `at` (the start of a character or the end). */
  private index(at: number): number {
    const k = this.rank(at);
    return k === 0 ? at : at - this.extra[k - 1]!;
  }

  /** Characters (code points) of the bytes from `start` to `end`, both the start of a character or the end. */
  codePoints(start: number, end: number): number {
    const moreBefore = (at: number): number => {
      const k = this.rank(at);
      return k === 0 ? 0 : this.more[k - 1]!;
    };
    return end - start - (moreBefore(end) - moreBefore(start));
  }

  private boundary(at: number): boolean {
    return at === this.bytes.length || (this.bytes[at]! & 0xc0) !== 0x80;
  }

  /** What Buffer#toString('utf8', start, end) gives, or null when an offset is inside a character (decode those bytes instead). */
  slice(start: number, end: number): string | null {
    if (!this.boundary(start) || !this.boundary(end)) return null;
    return this.text.slice(this.index(start), this.index(end));
  }
}

const slicers = new WeakMap<Uint8Array, Utf8Slicer | null>();

/** The slicer of `bytes`, made once per bytes object (the plan and its diff slice the same file); null when they are not valid UTF-8. */
export function slicerOf(bytes: Uint8Array): Utf8Slicer | null {
  let s = slicers.get(bytes);
  if (s === undefined) slicers.set(bytes, (s = isUtf8(bytes) ? new Utf8Slicer(bytes) : null));
  return s;
}
