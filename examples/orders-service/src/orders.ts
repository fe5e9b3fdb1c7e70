export type Order = { id: string; total: number; status: Status };
export type Status = { kind: 'open' } | { kind: 'paid'; at: Date } | { kind: 'cancelled'; reason: string };

export function markPaid(order: Order, at: Date): Order {
  if (order.status.kind !== 'open') throw new Error(`order ${order.id} is ${order.status.kind}`);
  return { ...order, status: { kind: 'paid', at } };
}
