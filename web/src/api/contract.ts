// The account and operator operations of issue 12, as the server declares them
// (src/http/account-api-schemas.ts, operator-api-schemas.ts), under the names the pages use.
export type {
  AccountView, ApiKeyList, ApiKeyView as ApiKeyListed, Counts, InvitationView as Invitation, InvitedUser as UserInvited, IssuedApiKey as ApiKeyCreated,
  KeyScope, LedgerEntry, LedgerPage, NewApiKeyRequest as NewApiKeyInput, PasswordResetAnswer, RenderedEmail as Rendered, RenderRequest as RenderInput, RetryFailedResult,
  Session, SignInRequest as SignInInput, TotpSetup, UsageDay, UsageView as Usage, UserList, UserRole as Role, UserView as AccountUser,
} from '@herald/http/account-api-schemas.ts';
export type {
  AccountList as AccountSearchPage, AccountSummary as OperatorAccountSummary, AdminAccount, HealthView as Health, OperatorSession,
  TopUpRequest as TopUpInput,
} from '@herald/http/operator-api-schemas.ts';
