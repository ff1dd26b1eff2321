// The longest names and reasons herald keeps, here alone so the web application's fields
// show the same limit the API checks (a name too long is refused with a 400, never cut).

export const KEY_NAME_MAX = 200;
export const ACCOUNT_NAME_MAX = 200;
/** An operator's reason for a top-up, kept in the ledger. */
export const TOP_UP_REASON_MAX = 500;
// Meta's own limits for message templates, so a template stored here can also be submitted unchanged.
export const WHATSAPP_TEMPLATE_NAME_MAX = 512;
export const WHATSAPP_TEMPLATE_BODY_MAX = 1024;
