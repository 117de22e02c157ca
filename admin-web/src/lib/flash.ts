// A message for the next page: what an action that navigates away (a discard) did, said where the person
// lands. Read once: the page that shows it takes it, so a reload or the next visit does not repeat it.
import { useState } from 'react';
import type { MessageKey } from '../i18n/en.js';

let pending: { key: MessageKey; params?: Record<string, string | number> } | null = null;

export function setFlash(key: MessageKey, params?: Record<string, string | number>): void {
  pending = { key, params };
}

/** The message left for this page, taken on first render. */
export function useFlash(): { key: MessageKey; params?: Record<string, string | number> } | null {
  const [flash] = useState(() => {
    const taken = pending;
    pending = null;
    return taken;
  });
  return flash;
}
