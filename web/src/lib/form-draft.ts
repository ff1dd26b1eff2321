// A form's unsaved work. While it differs from what was saved it is kept in the tab's
// storage (sessionStorage: this tab only, gone with it), so an ended session or a reload
// does not lose it; the page gives it back when the user returns. Leaving the page inside
// the application, or closing the tab, asks first.
import { useEffect, useRef } from 'react';
import { useBeforeUnload, useBlocker } from 'react-router';

const PREFIX = 'herald.draft.';

function storage(): Storage | undefined {
  try { return window.sessionStorage; } catch { return undefined; }
}

/** The draft kept under `key`, if any. */
export function readDraft<T>(key: string): T | undefined {
  const text = storage()?.getItem(PREFIX + key);
  if (text === null || text === undefined) return undefined;
  try { return JSON.parse(text) as T; } catch { return undefined; }
}

export function writeDraft(key: string, value: unknown): void {
  try { storage()?.setItem(PREFIX + key, JSON.stringify(value)); } catch { /* storage full or refused: the guard still asks */ }
}

export function discardDraft(key: string): void {
  storage()?.removeItem(PREFIX + key);
}

// The shell's navigation to sign-in when a session ends must not be held up by a page's
// guard: the draft is already kept, and the user comes back to it.
let leaveAllowed = false;
/** Lets the next navigation leave a page with unsaved edits without asking. */
export function allowNextLeave(): void {
  leaveAllowed = true;
  queueMicrotask(() => { setTimeout(() => { leaveAllowed = false; }, 0); });
}

/** Asks before leaving the page (in the app or by closing the tab) while `dirty`. */
export function useLeaveGuard(dirty: boolean, question: string): void {
  const blocker = useBlocker(({ currentLocation, nextLocation }) => dirty && !leaveAllowed && currentLocation.pathname !== nextLocation.pathname);
  useEffect(() => {
    if (blocker.state !== 'blocked') return;
    // The browser's own dialog: modal, keyboard-ready and announced, in the browser's language.
    if (window.confirm(question)) blocker.proceed();
    else blocker.reset();
  }, [blocker, question]);
  useBeforeUnload((event) => {
    if (!dirty || leaveAllowed) return;
    event.preventDefault();
  });
}

/**
 * Keeps a form's `value` as a draft under `key` while `dirty`, gives a kept draft to
 * `restore` once when the page opens, and asks before leaving while dirty. `discard()`
 * after a save forgets it. A key not known yet (undefined: the signed-in user still
 * loading after a reload) neither restores nor writes: restoring under a stand-in key
 * found nothing, and the next write under the real one then threw the draft away.
 */
export function useFormDraft<T>(key: string | undefined, value: T, dirty: boolean, restore: (draft: T) => void, question: string): { discard: () => void } {
  const restoredKey = useRef<string | undefined>(undefined);
  // Set in the commit that hands a draft back: the form does not hold it yet, and writing
  // its still-empty value would drop the kept draft should the page be remounted before
  // the next render (a lazy part loading under load did exactly that).
  const givenBack = useRef(false);
  useEffect(() => {
    if (key === undefined || restoredKey.current === key) return;
    restoredKey.current = key;
    const draft = readDraft<T>(key);
    if (draft === undefined) return;
    givenBack.current = true;
    restore(draft);
    // restore runs once per page opening, with the draft kept for this key.
  }, [key, restore]);
  useEffect(() => {
    if (key === undefined || restoredKey.current !== key) return;
    if (givenBack.current) {
      givenBack.current = false;
      return;
    }
    if (dirty) writeDraft(key, value);
    else discardDraft(key);
  }, [key, value, dirty]);
  useLeaveGuard(dirty, question);
  return { discard: () => { if (key !== undefined) discardDraft(key); } };
}
