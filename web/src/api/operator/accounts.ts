// The operator's accounts (/admin/v1/accounts): search, opening, settings, top-ups and the
// ledger, keys, WhatsApp templates, users.
import { api } from '../http.ts';
import type {
  AccountBody, AccountDetails, AccountSearchPage, AdminIssuedKey, AdminLedger, AdminLedgerEntry, AdminNewKeyInput, AllowListAppliesTo,
  NewWhatsappTemplateInput, Role, TopUpInput, UserInvited, UserList, WhatsappTemplateView,
} from '../types.ts';

export const ACCOUNT_PAGE = 50;

const accountPath = (id: string, tail = ''): string => `/admin/v1/accounts/${encodeURIComponent(id)}${tail}`;

export const operatorKeys = {
  accounts: ['operator', 'accounts'],
  accountPage: (search: string, cursor: string | undefined) => ['operator', 'accounts', search, cursor],
  account: (id: string) => ['operator', 'account', id],
  users: (id: string) => ['operator', 'account-users', id],
  ledger: (id: string) => ['operator', 'account-ledger', id],
  whatsappTemplates: (id: string) => ['operator', 'account-whatsapp-templates', id],
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

export const topUp = (id: string, input: TopUpInput) => api<AdminLedgerEntry>(accountPath(id, '/top-ups'), { method: 'POST', body: input, realm: 'operator' });

export const ledgerQuery = (id: string) => ({
  queryKey: operatorKeys.ledger(id),
  queryFn: () => api<AdminLedger>(accountPath(id, '/ledger'), { realm: 'operator' }),
}) as const;

export const issueKey = (id: string, input: AdminNewKeyInput) =>
  api<AdminIssuedKey>(accountPath(id, '/api-keys'), { method: 'POST', body: input, realm: 'operator' });

export const revokeKey = (id: string, keyId: string) =>
  api<undefined>(accountPath(id, `/api-keys/${encodeURIComponent(keyId)}`), { method: 'DELETE', realm: 'operator' });

export const whatsappTemplatesQuery = (id: string) => ({
  queryKey: operatorKeys.whatsappTemplates(id),
  queryFn: () => api<{ templates: WhatsappTemplateView[] }>(accountPath(id, '/whatsapp-templates'), { realm: 'operator' }),
}) as const;

export const addWhatsappTemplate = (id: string, input: NewWhatsappTemplateInput) =>
  api<WhatsappTemplateView>(accountPath(id, '/whatsapp-templates'), { method: 'POST', body: input, realm: 'operator' });

export const removeWhatsappTemplate = (id: string, templateId: string) =>
  api<undefined>(accountPath(id, `/whatsapp-templates/${encodeURIComponent(templateId)}`), { method: 'DELETE', realm: 'operator' });

export const accountUsersQuery = (id: string) => ({
  queryKey: operatorKeys.users(id),
  queryFn: () => api<UserList>(accountPath(id, '/users'), { realm: 'operator' }),
}) as const;

/** No role: inviting again someone who has not accepted keeps theirs. */
export const inviteAccountUser = (id: string, email: string, role: Role | undefined) =>
  api<UserInvited>(accountPath(id, '/users'), { method: 'POST', body: role === undefined ? { email } : { email, role }, realm: 'operator' });
