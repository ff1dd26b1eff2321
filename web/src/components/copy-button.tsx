import { useEffect, useState } from 'react';

/** Copies `text` to the clipboard; says so to screen readers. */
export function CopyButton(props: { text: string; label: string; className?: string }) {
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
  return (
    <span className="copy">
      <button type="button" className={props.className ?? 'button small secondary'} onClick={() => void copy()} aria-label={props.label}>
        {/* The visible text stays part of the accessible name (WCAG 2.5.3); the status below says it was copied. */}
        Copy
      </button>
      <span className={state === 'copied' ? 'copy-status' : 'visually-hidden'} role="status">{state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select the text and copy it' : ''}</span>
    </span>
  );
}

/** A value shown in full, monospace, with its copy button. */
export function CopyValue(props: { value: string; label: string }) {
  return (
    <div className="copy-value">
      <code>{props.value}</code>
      <CopyButton text={props.value} label={`Copy ${props.label}`} />
    </div>
  );
}
