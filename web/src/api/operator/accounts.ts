// The operator's accounts (/admin/v1/accounts): search, opening, settings, top-ups, users.
import { api } from '../http.ts';
import type { AccountBody, AccountDetails, AccountSearchPage, AllowListAppliesTo, Role, TopUpInput, UserInvited, UserList } from '../types.ts';

export const ACCOUNT_PAGE = 50;

const accountPath = (id: string, tail = ''): string => `/admin/v1/accounts/${encodeURIComponent(id)}${tail}`;

export const operatorKeys = {
  accounts: ['operator', 'accounts'],
  accountPage: (search: string, cursor: string | undefined) => ['operator', 'accounts', search, cursor],
  account: (id: string) => ['operator', 'account', id],
  users: (id: string) => ['operator', 'account-users', id],
} as const;

export const fetchAccounts = (q: string, cursor: string | undefined) =>
  api<AccountSearchPage>('/admin/v1/accounts', { query: { q, cursor, limit: ACCOUNT_PAGE }, realm: 'operator' });

export const openAccount = (name: string, messagesLeft: number) =>
  api<{ account: AccountBody }>('/admin/v1/accounts', { method: 'POST', body: { name, messagesLeft }, realm: 'operator' });

export const operatorAccountQuery = (id: string) => ({
  queryKey: operatorKeys.account(id),
  queryFn: () => api<AccountDetails>(accountPath(id), { realm: 'operator' }),
}) as const;

export interface AccountSettings {
  active: boolean; rateLimitPerSecond: number; whatsappPrice: string; services: Record<string, boolean>;
}

export const updateAccount = (id: string, body: AccountSettings | { ipAllowList: string[]; allowListAppliesTo: AllowListAppliesTo } | { smsSenders: string[] }) =>
  api<unknown>(accountPath(id), { method: 'PATCH', body, realm: 'operator' });

export const topUp = (id: string, input: TopUpInput) => api<unknown>(accountPath(id, '/top-ups'), { method: 'POST', body: input, realm: 'operator' });

export const accountUsersQuery = (id: string) => ({
  queryKey: operatorKeys.users(id),
  queryFn: () => api<UserList>(accountPath(id, '/users'), { realm: 'operator' }),
}) as const;

export const inviteAccountUser = (id: string, email: string, role: Role) =>
  api<UserInvited>(accountPath(id, '/users'), { method: 'POST', body: { email, role }, realm: 'operator' });
