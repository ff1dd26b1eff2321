// The one SMS both sides send: a one-segment text in the GSM 7-bit basic alphabet
// (herald sends it unpacked, one octet per septet) to a different number each time.

export function smsText(i: number): string {
  return `Your code is ${String(100000 + (i % 900000))}. It expires in 10 minutes.`;
}

/** `+52155` and eight digits: E.164 as herald's API takes it. */
export function mobileNumber(i: number): string {
  return `+52155${String(i).padStart(8, '0')}`;
}

/** POST /v1/sms/send body: one number. */
export function smsRequest(i: number): Record<string, unknown> {
  return { message: smsText(i), mobile_numbers: [mobileNumber(i)] };
}

/** The i-th request of `perRequest` numbers each (numbers i·k … i·k + k − 1): one text, as a campaign sends it. */
export function smsBatchRequest(i: number, perRequest: number): Record<string, unknown> {
  return { message: smsText(i), mobile_numbers: Array.from({ length: perRequest }, (_, j) => mobileNumber(i * perRequest + j)) };
}
