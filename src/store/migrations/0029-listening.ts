import type { Kysely } from 'kysely';
import { accountRow, addNullable, belongsTo, createTable, idKey, nullable, primaryKey, required, stamps, startingAt, unique } from './column-kit.ts';

// herald listens (issue 23): what comes back on every channel, the numbers an account
// sends SMS from, one consent ledger across channels, and the domains an account
// receives email at.
export async function up(db: Kysely<unknown>): Promise<void> {
  // sms_senders: JSON array, the first the default (null: the transport's own sender).
  // sms_keywords: JSON {stop, start, help} of the account's own words besides the standard ones.
  await addNullable(db, 'accounts', { sms_senders: 'text', sms_keywords: 'text', sms_help_text: 'text', sms_stop_text: 'text', sms_start_text: 'text' });

  // One message a person sent: an MO SMS, a WhatsApp message, an email to a receiving
  // domain. account_id is null while nobody could be found to route it to (unrouted,
  // for the operator). content: the channel's own fields as JSON (media, subject,
  // headers, authentication results…). provider_ref: the peer's id (wamid, Message-ID),
  // unique per channel so a peer's resend is stored once.
  await createTable(db, 'inbound_messages', [
    idKey, nullable('text', 'account_id'), required('text', 'channel', 'sender', 'recipient'), nullable('text', 'text', 'content', 'keyword', 'reply_to', 'provider_ref'),
    required('bigint', 'received_at', 'created_at'), unique('inbound_messages_provider_ref', ['channel', 'provider_ref']),
  ]);
  await db.schema.createIndex('inbound_messages_account').on('inbound_messages').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('inbound_messages_account_sender').on('inbound_messages').columns(['account_id', 'sender', 'id']).execute();
  // The retention sweep walks messages oldest first from where it stopped.
  await db.schema.createIndex('inbound_messages_created').on('inbound_messages').columns(['created_at', 'id']).execute();

  // A part of a concatenated MO SMS, kept (and acknowledged to the SMSC) until its
  // message is whole; parts that never complete are delivered as they are after a time-out.
  await createTable(db, 'inbound_sms_parts', [
    idKey, required('text', 'sender', 'recipient'), required('integer', 'reference', 'total', 'part'), required('text', 'text'),
    required('bigint', 'received_at'), unique('inbound_sms_parts_part', ['sender', 'recipient', 'reference', 'total', 'part']),
  ]);
  await db.schema.createIndex('inbound_sms_parts_received').on('inbound_sms_parts').columns(['received_at', 'id']).execute();

  // A file that came with an inbound message (a WhatsApp image, an email attachment).
  // WhatsApp media is fetched from Meta in the background: state pending → stored | failed.
  // content: the bytes as base64 once stored.
  await createTable(db, 'inbound_attachments', [
    idKey, belongsTo('inbound_id', 'inbound_messages.id'), nullable('text', 'account_id', 'filename', 'content_type', 'media_ref', 'content', 'last_error'),
    startingAt(0, 'bigint', 'size'), required('text', 'state'), startingAt(0, 'integer', 'attempts'), startingAt(0, 'bigint', 'next_attempt_at'),
    nullable('text', 'lease_owner'), nullable('bigint', 'lease_expires_at'), stamps,
  ]);
  await db.schema.createIndex('inbound_attachments_inbound').on('inbound_attachments').columns(['inbound_id', 'id']).execute();
  await db.schema.createIndex('inbound_attachments_due').on('inbound_attachments').columns(['state', 'next_attempt_at', 'id']).execute();

  // Every change of a person's consent on any channel, with its proof: the ledger.
  // sender: the account's number an SMS keyword was written to ('' where the change is
  // not about one sender). change: opted_out | opted_in. source: keyword | unsubscribe |
  // complaint | list | api | web. proof: JSON (inbound id, request id, address, user agent).
  await createTable(db, 'consent_ledger', [
    accountRow, required('text', 'channel', 'address', 'sender', 'change', 'source'), nullable('text', 'keyword', 'proof'), required('bigint', 'at'),
  ]);
  await db.schema.createIndex('consent_ledger_address').on('consent_ledger').columns(['account_id', 'address', 'id']).execute();

  // Who is opted out now, read on every SMS and WhatsApp template send: one row per
  // (account, channel, address, sender); deleted when the person opts back in.
  await createTable(db, 'opt_outs', [
    belongsTo('account_id', 'accounts.id'), required('text', 'channel', 'address', 'sender', 'ledger_id'), required('bigint', 'at'),
    primaryKey('opt_outs_pk', ['account_id', 'channel', 'address', 'sender']),
  ]);

  // A domain an account receives email at. verified_at: set when its MX points at
  // herald, or by the operator. rules: JSON array of {address, action, forward_to}.
  await createTable(db, 'receiving_domains', [
    accountRow, required('text', 'domain'), nullable('bigint', 'verified_at'), nullable('text', 'rules'), stamps,
    unique('receiving_domains_domain', ['domain']),
  ]);
}
