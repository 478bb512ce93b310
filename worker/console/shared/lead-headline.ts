/** What a lead is about, as its card heads it: shared by the server's page and /embed/workbench.js. */
import { ERASED_TEXT } from '../../vocabulary';

/** A lead's summary as a list heads it: an erased one says so; an empty one says what it holds. */
export function leadHeadline(summary: string): string {
  if (summary === ERASED_TEXT) return 'Erased: the visitor’s data was removed.';
  return summary || '(contact details only)';
}
