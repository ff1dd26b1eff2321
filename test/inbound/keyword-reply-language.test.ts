// herald's default answer to an SMS keyword is in the language of the word the person
// wrote: Spanish for BAJA, ALTA and AYUDA, English for the rest (docs/languages.md); an
// account's own texts are sent as they are.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { receiveInbound } from '../../src/app/receive-inbound.ts';
import type { Service } from '../../src/service.ts';
import { openAccount, startService, type TestAccount } from '../support/service.ts';

const SENDER = '+15550001111';
const PERSON = '+34612345678';

async function withSender(t: TestContext): Promise<{ service: Service; account: TestAccount }> {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 100 });
  await service.deps.db.updateTable('accounts').set({ sms_senders: JSON.stringify([SENDER]) }).where('id', '=', account.id).execute();
  return { service, account };
}

/** The text of the SMS herald answered a keyword with. */
async function answerTo(service: Service, text: string): Promise<string> {
  const received = await receiveInbound(service.deps, { channel: 'sms', from: PERSON, to: SENDER, text, receivedAt: service.deps.clock() });
  assert.equal(typeof received.replyId, 'string');
  const row = await service.deps.db.selectFrom('messages').innerJoin('sends', 'sends.id', 'messages.send_id').select('sends.payload')
    .where('messages.id', '=', received.replyId!).executeTakeFirstOrThrow();
  return (JSON.parse(row.payload) as { text: string }).text;
}

test('BAJA is confirmed in Spanish, as GSM 7-bit carries it', async (t) => {
  const { service } = await withSender(t);
  // á and ú are not in GSM 7-bit: the catalogue's Spanish is sent as "mas", "numero".
  assert.equal(await answerTo(service, 'baja'), 'Baja confirmada: no le enviaremos mas mensajes desde este numero. Responda ALTA para volver a suscribirse.');
});

test('AYUDA is answered in Spanish and HELP in English', async (t) => {
  const { service } = await withSender(t);
  assert.deepStrictEqual([await answerTo(service, 'AYUDA'), await answerTo(service, 'HELP')], [
    'Responda BAJA para darse de baja, ALTA para volver a suscribirse.',
    'Reply STOP to unsubscribe, START to resubscribe.',
  ]);
});

test('an account\'s own text answers a Spanish keyword as it is', async (t) => {
  const { service, account } = await withSender(t);
  await service.deps.db.updateTable('accounts').set({ sms_help_text: 'Call us at 555 0100.' }).where('id', '=', account.id).execute();
  assert.equal(await answerTo(service, 'ayuda'), 'Call us at 555 0100.');
});
