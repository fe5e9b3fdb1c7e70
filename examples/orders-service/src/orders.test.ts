import { describe, expect, it } from 'vitest';
import { markPaid } from './orders.js';

describe('markPaid', () => {
  it('refuses a cancelled order', () => {
    expect(() => markPaid({ id: '1', total: 5, status: { kind: 'cancelled', reason: 'x' } }, new Date())).toThrow();
  });
});
