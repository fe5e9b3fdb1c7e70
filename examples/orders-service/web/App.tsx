import { OrderList } from './components/OrderList.js';

export function App() {
  return <OrderList />;
}
