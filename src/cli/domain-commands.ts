import { accountExists } from '../app/account-view.ts';
import { addSenderDomainAsOperator } from '../app/add-sender-domain.ts';
import { getSenderDomain, listSenderDomainsOf } from '../app/sender-domains.ts';
import { verifySenderDomain, type SenderDomainVerification } from '../app/verify-sender-domain.ts';
import { parseNewSenderDomain } from '../domain/admin-input.ts';
import { reject } from '../domain/result.ts';
import { printed, printedAs, storeCommand } from './command-kit.ts';
import * as human from './human-output.ts';
import { terminalProgress } from './progress.ts';

// `domains …`: an account's sender domains and the DNS records that prove them.

export const domainAdd = storeCommand({
  usage: 'domains add ACCOUNT_ID DOMAIN [--verified] [--json]',
  summary: 'Add a sender domain and print the DNS records to publish (--verified: trust it without DNS)',
  positionals: ['ACCOUNT_ID', 'DOMAIN'],
  options: { verified: { type: 'boolean' } },
  flagOf: { domain: 'DOMAIN' },
  async run(deps, [accountId = '', domain], values) {
    const input = parseNewSenderDomain({ domain, verified: values.verified === true });
    if (!input.ok) return input;
    return printedAs(await addSenderDomainAsOperator(deps, accountId, input.value), human.domainDetailsText);
  },
});

export const domainList = storeCommand({
  usage: 'domains list ACCOUNT_ID [--json]',
  summary: 'An account\'s sender domains, with their state and records',
  positionals: ['ACCOUNT_ID'],
  async run(deps, [accountId = '']) {
    if (!(await accountExists(deps, accountId))) return reject('notFound');
    const { domains } = await listSenderDomainsOf(deps, accountId);
    return printed({ domains }, domains.length === 0 ? ['No sender domains.'] : domains.map(human.domainLine));
  },
});

export const domainShow = storeCommand({
  usage: 'domains show ACCOUNT_ID DOMAIN [--json]',
  summary: 'A sender domain and the DNS records to publish for it',
  positionals: ['ACCOUNT_ID', 'DOMAIN'],
  async run(deps, [accountId = '', domain = '']) {
    return printedAs(await getSenderDomain(deps, accountId, domain), human.domainDetailsText);
  },
});

export const domainVerify = storeCommand({
  usage: 'domains verify ACCOUNT_ID [DOMAIN...] [--json]',
  summary: 'Look the records up in DNS and mark the domains that match verified (every domain of the account when none is named)',
  positionals: ['ACCOUNT_ID'],
  rest: 'DOMAIN',
  async run(deps, [accountId = '', ...named]) {
    if (!(await accountExists(deps, accountId))) return reject('notFound');
    const names = named.length > 0 ? named : (await listSenderDomainsOf(deps, accountId)).domains.map((d) => d.domain);
    const progress = terminalProgress(process.stderr);
    const results: SenderDomainVerification[] = [];
    try {
      for (const [i, name] of names.entries()) {
        progress.step(i, names.length, `verifying ${name}`);
        const verified = await verifySenderDomain(deps, accountId, name);
        if (!verified.ok) return reject(verified.rejection.code, { detail: `${name}: ${verified.rejection.detail ?? 'Not found'}` });
        results.push(verified.value);
      }
    } finally {
      progress.end();
    }
    return printed({ domains: results }, results.length === 0 ? ['No sender domains.'] : results.flatMap(human.verificationText));
  },
});
