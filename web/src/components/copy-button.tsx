import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

/** Copies `text` to the clipboard; says so to screen readers. */
export function CopyButton(props: { text: string; label: string; className?: string }) {
  const { t } = useTranslation('common');
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2500);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(props.text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  // The visible word must stay part of the accessible name (WCAG 2.5.3) in every language,
  // even where a caller's label is not yet in the page's language.
  const visible = t('copy.button');
  const name = props.label.toLocaleLowerCase().includes(visible.toLocaleLowerCase()) ? props.label : `${visible}: ${props.label}`;
  return (
    <span className="copy">
      <button type="button" className={props.className ?? 'button small secondary'} onClick={() => void copy()} aria-label={name}>
        {/* The visible text stays part of the accessible name (WCAG 2.5.3); the status below says it was copied. */}
        {visible}
      </button>
      <span className={state === 'copied' ? 'copy-status' : 'visually-hidden'} role="status">{state === 'copied' ? t('copy.copied') : state === 'failed' ? t('copy.failed') : ''}</span>
    </span>
  );
}

/** A value shown in full, monospace, with its copy button. */
export function CopyValue(props: { value: string; label: string }) {
  const { t } = useTranslation('common');
  return (
    <div className="copy-value">
      <code>{props.value}</code>
      <CopyButton text={props.value} label={t('copy.label', { what: props.label })} />
    </div>
  );
}
