import { smsSenderForm } from '../../domain/sms-sender.ts';

// An account's SMS sender (domain/sms-sender.ts) as submit_sm's source address, its
// type of number (TON) and numbering plan (NPI) chosen from its form (SMPP v3.4 §5.2.5–6):
//   long number   TON 1 international, NPI 1 E.164, the digits without '+'
//   short code    TON 3 network specific, NPI 0 unknown: a short code is only meaningful
//                 inside its operator's network, and SMSCs refuse it as international
//   alphanumeric  TON 5 alphanumeric, NPI 0 unknown

export interface SourceAddress {
  readonly addr: string;
  readonly ton: number;
  readonly npi: number;
}

/** The source address of `sender`; null when it is not a sender herald accepts (a payload stored by hand). */
export function sourceAddressOf(sender: string): SourceAddress | null {
  switch (smsSenderForm(sender)) {
    case 'long-number': return { addr: sender.slice(1), ton: 1, npi: 1 };
    case 'short-code': return { addr: sender, ton: 3, npi: 0 };
    case 'alphanumeric': return { addr: sender, ton: 5, npi: 0 };
    case null: return null;
  }
}
