// The JSON shapes the pages read, declared once on the server and imported here as
// types only (they vanish from the bundle). Existing /v1 shapes are the use cases'
// own view types; the account operations of issue 12 come from the contract file. Pages
// take the server's types only from here (segments-model.ts, unit-tested under Node
// without the @herald alias, names its one type by relative path).
import type { Static } from '@sinclair/typebox';
import type { CampaignCreateSchema, RecipientPageSchema, TimelineSchema } from '@herald/campaigns/campaign-shapes.ts';
export type { MessagePage, MessageSummary, MessageView } from '@herald/app/get-message.ts';
export type { EmailTemplateSummary, EmailTemplateView } from '@herald/app/email-templates.ts';
export type { WhatsappTemplateView } from '@herald/app/list-whatsapp-templates.ts';
export type { SenderDomainDetails } from '@herald/app/sender-domains.ts';
export type { SenderDomainVerification } from '@herald/app/verify-sender-domain.ts';
export type { DomainCheck, DomainRecord } from '@herald/domain/sender-domain.ts';
export type { SuppressionPage, SuppressionView } from '@herald/app/suppressions.ts';
export type { WebhookSettingsView, RotatedSecret } from '@herald/app/webhook-settings.ts';
export type { WebhookEndpointView } from '@herald/app/webhook-endpoints.ts';
export type { AttemptView, DeliveryDetails, DeliveryPage, DeliverySummary } from '@herald/app/webhook-deliveries.ts';
export type { CertificateView } from '@herald/app/certificates.ts';
export type { AccountBody, AccountDetails } from '@herald/app/account-view.ts';
export type { AllowListAppliesTo, Channel } from '@herald/domain/account.ts';
export type { EventType } from '@herald/domain/event-catalogue.ts';
export type { MessageStatus } from '@herald/domain/message-status.ts';
export type * from './contract.ts';

// The marketing shapes of issue 13 (lists, contacts, segments, campaigns), from src/campaigns/.
export type { CampaignStatus, CampaignView, Quote, ResendTarget, Stats } from '@herald/campaigns/campaign-shapes.ts';
export type CampaignInput = Static<typeof CampaignCreateSchema>;
export type Timeline = Static<typeof TimelineSchema>;
export type RecipientPage = Static<typeof RecipientPageSchema>;
export type { ConsentEntry, ContactPage, ContactSummary, ContactView, ImportView } from '@herald/campaigns/contact-shapes.ts';
export type { ListCreate, ListCreated, ListPatch, ListView } from '@herald/campaigns/list-shapes.ts';
export type { Filter, SegmentRequest } from '@herald/campaigns/segment-filter.ts';
export type { SavedSegmentView } from '@herald/campaigns/saved-segment-shapes.ts';
export type { SegmentSample } from '@herald/app/segments.ts';
export type { SubscriptionStatus } from '@herald/campaigns/consent.ts';
export type { ConversationPage, ConversationSummary, ConversationThread, ReceivedThreadItem, SentThreadItem, ThreadItem } from '@herald/app/conversations.ts';
