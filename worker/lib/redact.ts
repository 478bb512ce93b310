/**
 * Contact details typed into free text: an expert who has not claimed a lead sees its summary
 * and its alert, and must not find the visitor's address or phone number there (the claim is
 * what reveals them, and it is counted).
 */

/** The text with any email address or phone number replaced by a placeholder. */
export function withoutContactDetails(text: string): string {
  return text
    .replace(/[^\s@<>()]+@[^\s@<>()]+\.[^\s@<>()]+/g, '[email removed]')
    .replace(/\+?\d[\d\s().-]{6,}\d/g, '[phone removed]');
}
