import type { Executor, SenderDomainsTable } from './database.ts';
import type { Selectable } from 'kysely';
import { queryRows, statement } from './prepared-statement.ts';
import { dkimSelectorMonth } from '../domain/sender-domain.ts';

/**
 * A sender domain without its private key: the key is read only by findDkimPrivateKey,
 * so nothing that renders a domain can leak it by accident.
 */
export interface SenderDomain {
  readonly id: string;
  readonly accountId: string;
  readonly domain: string;
  readonly verified: boolean;
  readonly createdAt: number;
  readonly verifiedAt: number | null;
  readonly dkimSelector: string | null;
  /** base64 DER SubjectPublicKeyInfo. */
  readonly dkimPublicKey: string | null;
  readonly verificationToken: string | null;
}

export interface DkimKeyPair {
  readonly selector: string;
  /** PEM, PKCS#8. */
  readonly privateKey: string;
  /** base64 DER SubjectPublicKeyInfo. */
  readonly publicKey: string;
}

/** A new row; rows made before DKIM existed (and some test fixtures) have no keys or token. */
export interface NewSenderDomain {
  readonly id: string;
  readonly accountId: string;
  readonly domain: string;
  readonly verified: boolean;
  readonly createdAt: number;
  /** Default: createdAt when added verified, else null. */
  readonly verifiedAt?: number | null;
  readonly dkim?: DkimKeyPair;
  readonly verificationToken?: string;
}

export async function insertSenderDomain(db: Executor, domain: NewSenderDomain): Promise<void> {
  await db
    .insertInto('sender_domains')
    .values({
      id: domain.id, account_id: domain.accountId, domain: domain.domain, verified: domain.verified ? 1 : 0, created_at: domain.createdAt,
      verified_at: domain.verifiedAt ?? (domain.verified ? domain.createdAt : null),
      dkim_selector: domain.dkim?.selector ?? null,
      dkim_private_key: domain.dkim?.privateKey ?? null,
      dkim_public_key: domain.dkim?.publicKey ?? null,
      verification_token: domain.verificationToken ?? null,
    })
    .execute();
}

const PUBLIC_COLUMNS = ['id', 'account_id', 'domain', 'verified', 'created_at', 'verified_at', 'dkim_selector', 'dkim_public_key', 'verification_token'] as const;
type PublicRow = Pick<Selectable<SenderDomainsTable>, (typeof PUBLIC_COLUMNS)[number]>;

function fromRow(row: PublicRow): SenderDomain {
  return {
    id: row.id, accountId: row.account_id, domain: row.domain, verified: row.verified === 1, createdAt: Number(row.created_at),
    verifiedAt: row.verified_at === null ? null : Number(row.verified_at),
    dkimSelector: row.dkim_selector, dkimPublicKey: row.dkim_public_key, verificationToken: row.verification_token,
  };
}

/** Read for every email sent: a prepared statement (store/prepared-statement.ts). */
export async function findSenderDomain(db: Executor, accountId: string, domain: string): Promise<SenderDomain | undefined> {
  const [row] = await queryRows<PublicRow>(db, FIND_SENDER_DOMAIN, [accountId, domain]);
  return row && fromRow(row);
}

const FIND_SENDER_DOMAIN = statement(`select ${PUBLIC_COLUMNS.join(', ')} from sender_domains where account_id = $1 and domain = $2`);

export async function listSenderDomains(db: Executor, accountId: string): Promise<SenderDomain[]> {
  const rows = await db.selectFrom('sender_domains').select(PUBLIC_COLUMNS).where('account_id', '=', accountId).orderBy('domain').execute();
  return rows.map(fromRow);
}

/** Gives a keyless row (made before DKIM existed) its key pair; a row that has one keeps it. */
export async function setDkimKeysIfMissing(db: Executor, id: string, keys: DkimKeyPair): Promise<void> {
  await db
    .updateTable('sender_domains')
    .set({ dkim_selector: keys.selector, dkim_private_key: keys.privateKey, dkim_public_key: keys.publicKey })
    .where('id', '=', id)
    .where('dkim_selector', 'is', null)
    .execute();
}

export async function setVerificationTokenIfMissing(db: Executor, id: string, token: string): Promise<void> {
  await db.updateTable('sender_domains').set({ verification_token: token }).where('id', '=', id).where('verification_token', 'is', null).execute();
}

/** Marks the domain verified once; a second verification keeps the first time. */
export async function markSenderDomainVerified(db: Executor, id: string, at: number): Promise<void> {
  await db.updateTable('sender_domains').set({ verified: 1, verified_at: at }).where('id', '=', id).where('verified', '=', 0).execute();
}

/** The signing key of a verified domain that has one; what the email transports sign with. */
export async function findDkimPrivateKey(
  db: Executor,
  accountId: string,
  domain: string,
): Promise<{ selector: string; privateKey: string } | undefined> {
  const row = await db
    .selectFrom('sender_domains')
    .select(['dkim_selector', 'dkim_private_key'])
    .where('account_id', '=', accountId)
    .where('domain', '=', domain)
    .where('verified', '=', 1)
    .executeTakeFirst();
  if (!row || row.dkim_selector === null || row.dkim_private_key === null) return undefined;
  return { selector: row.dkim_selector, privateKey: row.dkim_private_key };
}

/**
 * When the oldest DKIM key that signs mail (a verified domain's) was made: the month its
 * selector names (keys have no expiry of their own; the rotation alert reads its age).
 * Read at each metrics scrape: selectors sort by month, so one MIN over a small table.
 */
export async function oldestDkimKeyCreatedAt(db: Executor): Promise<number | undefined> {
  const row = await db
    .selectFrom('sender_domains')
    .select((eb) => eb.fn.min('dkim_selector').as('oldest'))
    .where('verified', '=', 1)
    .where('dkim_selector', 'is not', null)
    .executeTakeFirst();
  return row?.oldest === null || row?.oldest === undefined ? undefined : dkimSelectorMonth(row.oldest);
}

/** Deletes the account's domain (its DKIM key goes with the row); false when it had none. */
export async function deleteSenderDomain(db: Executor, accountId: string, domain: string): Promise<boolean> {
  const result = await db.deleteFrom('sender_domains').where('account_id', '=', accountId).where('domain', '=', domain).executeTakeFirst();
  return result.numDeletedRows === 1n;
}

// Paused counts: a paused campaign resumes with its from address.
const ACTIVE_CAMPAIGN_STATUSES = ['scheduled', 'running', 'paused'];

/** The account's campaigns that will still send from an address at `domain`: scheduled, running or paused, at most 20 named. */
export async function campaignsSendingFrom(db: Executor, accountId: string, domain: string): Promise<{ id: string; name: string }[]> {
  // An account has few campaigns in these states; matching the address's domain here keeps LIKE's wildcards out of it.
  const rows = await db.selectFrom('campaigns').select(['id', 'name', 'from_email'])
    .where('account_id', '=', accountId).where('status', 'in', ACTIVE_CAMPAIGN_STATUSES).orderBy('id').limit(1000).execute();
  return rows.filter((r) => r.from_email.slice(r.from_email.lastIndexOf('@') + 1).toLowerCase() === domain).slice(0, 20).map((r) => ({ id: r.id, name: r.name }));
}
