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
        {state === 'copied' ? 'Copied' : 'Copy'}
      </button>
      <span className="visually-hidden" role="status">{state === 'copied' ? 'Copied to the clipboard' : state === 'failed' ? 'Copy failed: select the text and copy it' : ''}</span>
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
