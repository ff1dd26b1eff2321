import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { ApiError } from './api/http.ts';
import { App } from './app.tsx';
import './i18n/i18n.ts';
import './styles.css';

// A refused request is not retried: herald's answer (a 4xx with its text) is the state to show.
const retry = (count: number, error: unknown): boolean => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2;

const client = new QueryClient({
  defaultOptions: { queries: { retry, refetchOnWindowFocus: false, staleTime: 10_000 } },
  queryCache: new QueryCache(),
  mutationCache: new MutationCache(),
});

// A data router (one splat route holding the app's own <Routes>), so pages can ask before
// leaving with unsaved work (useBlocker: web/src/lib/form-draft.ts).
const router = createBrowserRouter([{ path: '*', element: <App /> }], { basename: '/app' });

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={client}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
