// The operator invites a person to an account over the admin API, as a browser story's
// setup: the invitation link the person then follows (page-steps.ts acceptInvitation).
import assert from 'node:assert/strict';
import { ADMIN_TOKEN } from '../support/service.ts';

export async function invitationLink(base: string, accountId: string, email: string, role: string): Promise<string> {
  const invited = await fetch(`${base}/admin/v1/accounts/${accountId}/users`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ email, role }),
  });
  assert.equal(invited.status, 201);
  return ((await invited.json()) as { invitation_url: string }).invitation_url;
}
