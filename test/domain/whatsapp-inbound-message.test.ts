// The Cloud API's user messages (recorded bodies in test/fixtures/whatsapp/, in the
// shapes of Meta's webhook reference) read into the ArrivingMessage herald stores.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseWhatsappWebhook } from '../../src/domain/whatsapp-webhook.ts';
import { arrivingWhatsapp, WHATSAPP_INBOUND_LIMITS } from '../../src/domain/whatsapp-inbound-message.ts';

const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`../fixtures/whatsapp/${name}.json`, import.meta.url), 'utf8'));
const AT = 1_767_225_600_000;

/** The fixture's one message as herald hands it over, answering herald's msgid `m-1` when it names wamid.HERALD-SENT-1. */
function arriving(name: string) {
  const [message, ...rest] = parseWhatsappWebhook(fixture(name)).inbound;
  assert.equal(rest.length, 0);
  assert.ok(message);
  return arrivingWhatsapp(message, { receivedAt: AT, replyTo: message.answers === 'wamid.HERALD-SENT-1' ? 'm-1' : undefined });
}

const common = { channel: 'whatsapp', from: '+5215512345678', to: '106540352242922', receivedAt: AT };

test('a text message gives its body, the wamid and the sender\'s profile name', () => {
  assert.deepStrictEqual(arriving('text'), {
    ...common, text: '¿Tienen la talla 38?', providerRef: 'wamid.HBgNNTIxNTUxMjM0NTY3OBUCABIYFjNFQjBDMEI3RjQ2RkQ1OEFGQkE2AA==',
    content: { type: 'text', profile_name: 'Ana Ruiz' },
  });
});

test('a text that quotes herald\'s message answers that message\'s msgid', () => {
  assert.deepStrictEqual(arriving('text-reply'), {
    ...common, text: 'Sí, a las 5', providerRef: 'wamid.HBgNNTIxNTUxMjM0NTY3OBUCABIYFjNFQjBBNkE4NDlFRTc0NDJFMkM5AA==',
    content: { type: 'text', profile_name: 'Ana Ruiz' }, replyTo: 'm-1',
  });
});

test('an image gives its caption as text, its media fields, and an attachment to fetch by media id', () => {
  assert.deepStrictEqual(arriving('image'), {
    ...common, text: 'La etiqueta', providerRef: 'wamid.HBgNNTIxNTUxMjM0NTY3OBUCABIYFjNFQjA0QzVBRTRCNjFGNjNCNjI1AA==',
    content: {
      type: 'image', profile_name: 'Ana Ruiz',
      media: { id: '1479537139650973', mime_type: 'image/jpeg', sha256: 'ns5zFWgnTN3mtcY9vDl1Z7Lt0R0aKzJ+5Y0y6kA3G9o=', filename: null, caption: 'La etiqueta' },
    },
    attachments: [{ mediaRef: '1479537139650973', filename: null, contentType: 'image/jpeg' }],
  });
});

test('a document keeps its file name on the media and the attachment', () => {
  const message = arriving('document');
  assert.equal(message.text, 'Factura');
  assert.deepStrictEqual(message.content?.['media'], { id: '2718281828459045', mime_type: 'application/pdf', sha256: 't0Gq9v+cP3a0m0vJk1pBqLkX1lq0c5xq0v1m8bLQk3c=', filename: 'factura-0042.pdf', caption: 'Factura' });
  assert.deepStrictEqual(message.attachments, [{ mediaRef: '2718281828459045', filename: 'factura-0042.pdf', contentType: 'application/pdf' }]);
});

test('audio, video and stickers are media of their own type', () => {
  const types = ['audio', 'video', 'sticker'].map((name) => {
    const message = arriving(name);
    return [message.content?.['type'], message.text, message.attachments?.[0]];
  });
  assert.deepStrictEqual(types, [
    ['audio', null, { mediaRef: '3141592653589793', filename: null, contentType: 'audio/ogg; codecs=opus' }],
    ['video', 'Así llegó', { mediaRef: '1618033988749894', filename: null, contentType: 'video/mp4' }],
    ['sticker', null, { mediaRef: '1414213562373095', filename: null, contentType: 'image/webp' }],
  ]);
});

test('a location gives its coordinates, name and address, and no text', () => {
  const message = arriving('location');
  assert.equal(message.text, null);
  assert.deepStrictEqual(message.content, {
    type: 'location', profile_name: 'Ana Ruiz',
    location: { latitude: 19.4326077, longitude: -99.133208, name: 'Zócalo', address: 'Plaza de la Constitución, Centro, 06000 Ciudad de México, CDMX' },
  });
});

test('a contact card gives its names, phones and emails', () => {
  assert.deepStrictEqual(arriving('contacts').content, {
    type: 'contacts', profile_name: 'Ana Ruiz',
    contacts: [{
      name: { formatted_name: 'Luis Pérez', first_name: 'Luis', last_name: 'Pérez' },
      phones: [{ phone: '+52 55 8765 4321', wa_id: '5215587654321', type: 'CELL' }],
      emails: [{ email: 'luis@example.com', type: 'WORK' }],
    }],
  });
});

test('a reply button pressed gives its id and title, the title as text, answering the message that offered it', () => {
  assert.deepStrictEqual(arriving('button-reply'), {
    ...common, text: 'Cambiar fecha', providerRef: 'wamid.HBgNNTIxNTUxMjM0NTY3OBUCABIYFjNFQjA2QUY3RDQ1QUE3N0Y0NjZFAA==',
    content: { type: 'button_reply', profile_name: 'Ana Ruiz', button: { id: 'change-date', title: 'Cambiar fecha' } }, replyTo: 'm-1',
  });
});

test('a list row chosen gives its id, title and description', () => {
  const message = arriving('list-reply');
  assert.equal(message.text, '17:00');
  assert.deepStrictEqual(message.content, { type: 'list_reply', profile_name: 'Ana Ruiz', button: { id: 'slot-1700', title: '17:00', description: 'Sucursal Centro' } });
  assert.equal(message.replyTo, 'm-1');
});

test('a template\'s quick reply button gives its payload and text', () => {
  const message = arriving('button');
  assert.equal(message.text, 'Dejar de recibir');
  assert.deepStrictEqual(message.content, { type: 'button', profile_name: 'Ana Ruiz', button: { payload: 'STOP_PROMOS', text: 'Dejar de recibir' } });
  assert.equal(message.replyTo, 'm-1');
});

test('a reaction gives its emoji as text and answers the message reacted to', () => {
  assert.deepStrictEqual(arriving('reaction'), {
    ...common, text: '👍', providerRef: 'wamid.HBgNNTIxNTUxMjM0NTY3OBUCABIYFjNFQjAzQkRGOTQ0QUU0RDdDNzdBAA==',
    content: { type: 'reaction', profile_name: 'Ana Ruiz', reaction: { message_id: 'wamid.HERALD-SENT-1', emoji: '👍' } }, replyTo: 'm-1',
  });
});

test('an unsupported message is kept with Meta\'s errors', () => {
  const message = arriving('unsupported');
  assert.equal(message.text, null);
  assert.deepStrictEqual(message.content, {
    type: 'unsupported', profile_name: 'Ana Ruiz', original_type: null,
    errors: [{ code: 131051, title: 'Message type unknown', details: 'Message type is currently not supported.' }],
  });
});

/** A body of `messages` to the fixtures' number. */
const body = (messages: unknown[]) => ({
  object: 'whatsapp_business_account',
  entry: [{ id: '1', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { phone_number_id: '106540352242922' }, messages } }] }],
});

test('a type herald does not read, or a known type without its fields, is unsupported with its original type', () => {
  const read = parseWhatsappWebhook(body([
    { from: '5215512345678', id: 'wamid.a', timestamp: '1', type: 'order', order: { catalog_id: '1' } },
    { from: '5215512345678', id: 'wamid.b', timestamp: '1', type: 'location', location: { latitude: 'north' } },
    { from: '5215512345678', id: 'wamid.c', timestamp: '1', type: 'interactive', interactive: { type: 'nfm_reply' } },
  ])).inbound;
  assert.deepStrictEqual(read.map((m) => m.content['original_type']), ['order', 'location', 'interactive.nfm_reply']);
});

test('a message without a sender\'s wa_id or a wamid is skipped', () => {
  const read = parseWhatsappWebhook(body([
    { from: '+52 1 55', id: 'wamid.a', type: 'text', text: { body: 'x' } },
    { from: '5215512345678', type: 'text', text: { body: 'x' } },
    { from: '5215512345678', id: 'w'.repeat(WHATSAPP_INBOUND_LIMITS.idChars + 1), type: 'text', text: { body: 'x' } },
  ])).inbound;
  assert.deepStrictEqual(read, []);
});

test('a text past its bound is cut, and a body past its items is read up to the bound', () => {
  const long = 'a'.repeat(WHATSAPP_INBOUND_LIMITS.textChars + 10);
  const messages = Array.from({ length: WHATSAPP_INBOUND_LIMITS.itemsPerBody + 5 }, (_, i) => ({ from: '5215512345678', id: `wamid.${i}`, type: 'text', text: { body: long } }));
  const read = parseWhatsappWebhook(body(messages)).inbound;
  // The entry and its change count against the bound too.
  assert.equal(read.length, WHATSAPP_INBOUND_LIMITS.itemsPerBody - 2);
  assert.equal(read[0]?.text?.length, WHATSAPP_INBOUND_LIMITS.textChars);
});
