export function OrderList() {
  return <ul aria-label="orders" />;
}
