/**
 * Sums of money as people read them: integer minor units of a currency, formatted with `Intl` in
 * the currency's own number of decimals (2 for EUR, 0 for JPY).
 */

/** `1234` EUR as `€12.34`. */
export function formatMoney(minor: number, currency: string, locale = 'en-GB'): string {
  const format = new Intl.NumberFormat(locale, { style: 'currency', currency });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(minor / 10 ** digits);
}

/** A count with thousands separators. */
export const formatCount = (count: number, locale = 'en-GB') => count.toLocaleString(locale);
