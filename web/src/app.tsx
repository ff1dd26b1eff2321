import { lazy, Suspense } from 'react';
import { Route, Routes } from 'react-router';
import { Loading } from './components/query-state.tsx';
import { AccountShell } from './shell/account-shell.tsx';
import { OperatorShell } from './shell/operator-shell.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { NotFoundPage } from './pages/not-found.tsx';

// Each page is its own chunk: the first page loads only the shell and itself.
const OverviewPage = lazy(() => import('./pages/overview.tsx'));
const ApiKeysPage = lazy(() => import('./pages/api-keys.tsx'));
const ApiRequestsPage = lazy(() => import('./pages/api-requests.tsx'));
const TemplatesPage = lazy(() => import('./pages/templates.tsx'));
const TemplateEditorPage = lazy(() => import('./pages/template-editor.tsx'));
const DomainsPage = lazy(() => import('./pages/domains.tsx'));
const DomainPage = lazy(() => import('./pages/domain.tsx'));
const MessagesPage = lazy(() => import('./pages/messages.tsx'));
const MessagePage = lazy(() => import('./pages/message.tsx'));
const ConversationsPage = lazy(() => import('./pages/conversations.tsx'));
const ComposePage = lazy(() => import('./pages/compose.tsx'));
const WhatsappTemplatesPage = lazy(() => import('./pages/whatsapp-templates.tsx'));
const WebhooksPage = lazy(() => import('./pages/webhooks.tsx'));
const DeliveryPage = lazy(() => import('./pages/webhook-delivery.tsx'));
const EndpointPage = lazy(() => import('./pages/webhook-endpoint.tsx'));
const SuppressionsPage = lazy(() => import('./pages/suppressions.tsx'));
const UsagePage = lazy(() => import('./pages/usage.tsx'));
const ListsPage = lazy(() => import('./pages/lists.tsx'));
const ListMembersPage = lazy(() => import('./pages/lists-members.tsx'));
const ContactPage = lazy(() => import('./pages/lists-contact.tsx'));
const SegmentsPage = lazy(() => import('./pages/segments.tsx'));
const CampaignsPage = lazy(() => import('./pages/campaigns.tsx'));
const CampaignEditorPage = lazy(() => import('./pages/campaign-editor.tsx'));
const CampaignPage = lazy(() => import('./pages/campaign.tsx'));
const UsersPage = lazy(() => import('./pages/users.tsx'));
const ProfilePage = lazy(() => import('./pages/profile.tsx'));
const InvitationPage = lazy(() => import('./pages/invitation.tsx'));
const PasswordResetPage = lazy(() => import('./pages/password-reset.tsx'));
const OperatorSignInPage = lazy(() => import('./pages/operator/operator-sign-in.tsx'));
const OperatorAccountsPage = lazy(() => import('./pages/operator/accounts.tsx'));
const OperatorAccountPage = lazy(() => import('./pages/operator/account.tsx'));
const OperatorHealthPage = lazy(() => import('./pages/operator/health.tsx'));

export function App() {
  return (
    <Suspense fallback={<div className="centered"><Loading /></div>}>
      <Routes>
        <Route path="sign-in" element={<SignInPage />} />
        {/* Emailed links carry their token after the # (never sent to a server): /app/invitation#<token>. */}
        <Route path="invitation" element={<InvitationPage />} />
        <Route path="password-reset" element={<PasswordResetPage />} />
        <Route path="operator/sign-in" element={<OperatorSignInPage />} />
        <Route path="operator" element={<OperatorShell />}>
          <Route index element={<OperatorAccountsPage />} />
          <Route path="accounts/:id" element={<OperatorAccountPage />} />
          <Route path="health" element={<OperatorHealthPage />} />
          <Route path="*" element={<NotFoundPage />} />
        </Route>
        <Route element={<AccountShell />}>
          <Route index element={<OverviewPage />} />
          <Route path="api-keys" element={<ApiKeysPage />} />
          <Route path="api-keys/:keyId/requests" element={<ApiRequestsPage />} />
          <Route path="templates" element={<TemplatesPage />} />
          <Route path="templates/new" element={<TemplateEditorPage />} />
          <Route path="templates/:templateId" element={<TemplateEditorPage />} />
          <Route path="domains" element={<DomainsPage />} />
          <Route path="domains/:domain" element={<DomainPage />} />
          <Route path="messages" element={<MessagesPage />} />
          <Route path="messages/:msgid" element={<MessagePage />} />
          <Route path="conversations" element={<ConversationsPage />} />
          <Route path="conversations/:person" element={<ConversationsPage />} />
          <Route path="compose" element={<ComposePage />} />
          <Route path="whatsapp-templates" element={<WhatsappTemplatesPage />} />
          <Route path="webhooks" element={<WebhooksPage />} />
          <Route path="webhooks/deliveries/:id" element={<DeliveryPage />} />
          <Route path="webhooks/endpoints/:id" element={<EndpointPage />} />
          <Route path="suppressions" element={<SuppressionsPage />} />
          <Route path="usage" element={<UsagePage />} />
          <Route path="lists" element={<ListsPage />} />
          <Route path="lists/:listId" element={<ListMembersPage />} />
          <Route path="contacts/:contactId" element={<ContactPage />} />
          <Route path="segments" element={<SegmentsPage />} />
          <Route path="campaigns" element={<CampaignsPage />} />
          <Route path="campaigns/new" element={<CampaignEditorPage />} />
          <Route path="campaigns/:campaignId" element={<CampaignPage />} />
          <Route path="campaigns/:campaignId/edit" element={<CampaignEditorPage />} />
          <Route path="users" element={<UsersPage />} />
          <Route path="profile" element={<ProfilePage />} />
          <Route path="*" element={<NotFoundPage />} />
        </Route>
      </Routes>
    </Suspense>
  );
}
