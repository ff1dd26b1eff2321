import { Link } from 'react-router';
import { Page } from '../components/page.tsx';

export function NotFoundPage() {
  return (
    <Page title="Page not found">
      <p>There is no page at this address. <Link to="/">Go to the overview</Link>.</p>
    </Page>
  );
}
