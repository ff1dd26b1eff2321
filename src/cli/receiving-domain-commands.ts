import { markReceivingDomainVerifiedByName } from '../app/receiving-domains.ts';
import { printedAs, storeCommand } from './command-kit.ts';

// `receiving-domains …`: the operator's hand on an account's receiving domains. The
// account adds them and verifies them by DNS itself (/v1/receiving-domains); the
// operator may vouch for one whose MX cannot be checked from here (split DNS, a relay).

export const receivingDomainMarkVerified = storeCommand({
  usage: 'receiving-domains mark-verified DOMAIN [--json]',
  summary: 'Mark a receiving domain verified without looking its MX up: herald takes mail for it at once',
  positionals: ['DOMAIN'],
  async run(deps, [domain = '']) {
    return printedAs(await markReceivingDomainVerifiedByName(deps, domain), (view) => [`${view.domain} verified at ${view.verified_at ?? ''}`]);
  },
});
