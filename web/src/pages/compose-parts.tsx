import { useEffect, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatCount, formatMoney } from '../lib/format.ts';

/** Radio buttons in a fieldset: arrow keys move between them, as a keyboard user expects. */
export function ChoiceGroup<T extends string>(props: { legend: string; name: string; value: T; options: readonly { value: T; label: string }[]; onChange: (value: T) => void }) {
  return (
    <fieldset className="checkbox-group">
      <legend>{props.legend}</legend>
      <div className="compose-choices">
        {props.options.map((option) => (
          <label key={option.value} className="checkbox">
            <input type="radio" name={props.name} value={option.value} checked={props.value === option.value} onChange={() => props.onChange(option.value)} />
            {' '}{option.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/**
 * What a send will cost, shown before it is sent: prepaid messages (email, SMS) or money
 * from the balance (WhatsApp), what the account has and what it will have after.
 */
export function QuoteBox(props: { kind: 'messages'; count: number; have: number; detail: ReactNode } | { kind: 'money'; price: number; have: number; detail: ReactNode }) {
  const { t } = useTranslation('compose');
  const short = props.kind === 'messages' ? props.count > props.have : props.price > props.have;
  return (
    <section className="compose-quote" aria-labelledby="compose-quote-heading">
      <h2 id="compose-quote-heading">{t('quote.title')}</h2>
      <p className="quote-detail">{props.detail}</p>
      {props.kind === 'messages' ? (
        <dl className="quote-figures">
          <dt>{t('quote.costs')}</dt><dd data-testid="quote-cost">{t('quote.messages', { count: props.count, formatted: formatCount(props.count) })}</dd>
          <dt>{t('quote.messagesLeft')}</dt><dd data-testid="quote-have">{formatCount(props.have)}</dd>
          <dt>{t('quote.after')}</dt><dd data-testid="quote-after">{formatCount(props.have - props.count)}</dd>
        </dl>
      ) : (
        <dl className="quote-figures">
          <dt>{t('quote.costs')}</dt><dd data-testid="quote-cost">{formatMoney(props.price)}</dd>
          <dt>{t('quote.balance')}</dt><dd data-testid="quote-have">{formatMoney(props.have)}</dd>
          <dt>{t('quote.after')}</dt><dd data-testid="quote-after">{formatMoney(props.have - props.price)}</dd>
        </dl>
      )}
      {short ? <p className="state warning" role="note">{t(props.kind === 'messages' ? 'quote.shortMessages' : 'quote.shortBalance')}</p> : null}
    </section>
  );
}

/**
 * herald's refusal answers the message as it was sent: once the user changes the message
 * (`message`, the form's fields as one string), the refusal is no longer shown.
 */
export function useRefusalClearedOnEdit(send: { isError: boolean; reset: () => void }, message: string): void {
  const shown = useRef(message);
  useEffect(() => {
    if (shown.current === message) return;
    shown.current = message;
    if (send.isError) send.reset();
  }, [message, send]);
}

/** What herald answered, focused when it appears, with a link to each message in the log. */
export function SentNotice(props: { answer: string; summary: string; messages: readonly { msgid: string; to: string }[] }) {
  const { t } = useTranslation('compose');
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    box.current?.focus();
  }, [props.messages]);
  return (
    <div className="notice compose-sent" role="status" tabIndex={-1} ref={box} aria-labelledby="compose-sent-heading">
      <h2 id="compose-sent-heading">{t('sent.title')}</h2>
      {/* herald's own confirmation, as herald wrote it. */}
      <p><strong>{props.answer}</strong> — {props.summary}</p>
      <ul>
        {props.messages.map((m) => <li key={m.msgid}><Link to={`/messages/${m.msgid}`}>{t('sent.link', { to: m.to })}</Link></li>)}
      </ul>
    </div>
  );
}
