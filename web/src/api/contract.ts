// The account and operator operations of issue 12, as the server declares them
// (src/http/account-api-schemas.ts, operator-api-schemas.ts), under the names the pages use.
import type { AccountView as ServerAccountView } from '@herald/http/account-api-schemas.ts';

export type {
  ApiKeyList, ApiKeyView as ApiKeyListed, Counts, InvitationView as Invitation, InvitedUser as UserInvited, IssuedApiKey as ApiKeyCreated,
  KeyScope, LedgerEntry, LedgerPage, NewApiKeyRequest as NewApiKeyInput, RenderedEmail as Rendered, RenderRequest as RenderInput,
  Session, SignInRequest as SignInInput, TotpSetup, UsageDay, UsageView as Usage, UserList, UserRole as Role, UserView as AccountUser,
} from '@herald/http/account-api-schemas.ts';
export type {
  AccountList as AccountSearchPage, AccountSummary as OperatorAccountSummary, AdminAccount, HealthView as Health, OperatorSession,
  TopUpRequest as TopUpInput,
} from '@herald/http/operator-api-schemas.ts';

/**
 * The account, plus the address herald sees this browser at — a field the allow-list
 * editor needs to warn before a list locks the browser out; the contract does not carry
 * it yet (asked of the back end), and without it the editor cannot warn.
 */
export type AccountView = ServerAccountView & { readonly caller_ip?: string };
