import { useEffect, useRef, type RefObject } from 'react';

/**
 * Focus after an action (issue 24): a ref for the element that says what happened (a
 * status given tabIndex={-1}), focused each time `trigger` changes to something, so the
 * keyboard never falls back to <body> when the control it used goes away.
 */
export function useFocusOn<T extends HTMLElement>(trigger: unknown): RefObject<T | null> {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (trigger !== undefined && trigger !== null && trigger !== false) ref.current?.focus();
  }, [trigger]);
  return ref;
}
