// The account itself (/v1/account: balance, allow-list) and the signed-in user's own
// settings under /v1/me (password, TOTP, sessions).
import { api } from './http.ts';
import type { AccountView, AllowListAppliesTo, TotpSetup } from './types.ts';

export const accountKeys = { account: ['account'] } as const;

export const accountQuery = { queryKey: accountKeys.account, queryFn: () => api<AccountView>('/v1/account') } as const;

export const saveAllowList = (entries: readonly string[], appliesTo: AllowListAppliesTo) =>
  api<AccountView>('/v1/account', { method: 'PATCH', body: { ip_allow_list: entries, allow_list_applies_to: appliesTo } });

export const changePassword = (current: string, next: string) =>
  api<undefined>('/v1/me/password', { method: 'POST', body: { current_password: current, new_password: next } });

export const startTotp = () => api<TotpSetup>('/v1/me/totp', { method: 'POST' });

export const confirmTotp = (code: string) => api<undefined>('/v1/me/totp/confirm', { method: 'POST', body: { code } });

export const disableTotp = (code: string) => api<undefined>('/v1/me/totp', { method: 'DELETE', body: { code } });

export const signOutEverywhere = () => api<undefined>('/v1/me/sign-out-everywhere', { method: 'POST' });
