// The account and operator operations of issue 12, as the server declares them
// (src/http/schemas/<resource>.ts), under the names the pages use.
export type { AccountView, Counts, LedgerEntry, LedgerPage, UsageDay, UsageView as Usage } from '@herald/http/schemas/account.ts';
export type { ApiKeyList, ApiKeyView as ApiKeyListed, IssuedApiKey as ApiKeyCreated, KeyScope, NewApiKeyRequest as NewApiKeyInput } from '@herald/http/schemas/api-keys.ts';
export type { InvitationView as Invitation, OperatorSession, PasswordResetAnswer, Session, SignInRequest as SignInInput, TotpSetup } from '@herald/http/schemas/sessions.ts';
export type { InvitedUser as UserInvited, UserList, UserRole as Role, UserView as AccountUser } from '@herald/http/schemas/users.ts';
export type { RenderedEmail as Rendered, RenderRequest as RenderInput } from '@herald/http/schemas/templates.ts';
export type { RetryFailedResult } from '@herald/http/schemas/webhooks.ts';
export type { AccountList as AccountSearchPage, AccountSummary as OperatorAccountSummary, AdminAccount, AdminIssuedKey, AdminLedger, AdminLedgerEntry, TopUpRequest as TopUpInput } from '@herald/http/schemas/operator-accounts.ts';
export type { NewApiKeyBody as AdminNewKeyInput } from '@herald/domain/admin-input.ts';
export type { NewWhatsappTemplateBody as NewWhatsappTemplateInput } from '@herald/app/create-whatsapp-template.ts';
export type { HealthView as Health } from '@herald/http/schemas/service-health.ts';
export type { SmtpPortView as SmtpPort, SmtpSettingsView as SmtpSettings } from '@herald/http/schemas/smtp-settings.ts';
