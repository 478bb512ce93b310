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

/** How many decimals a currency's minor unit has (2 for EUR, 0 for JPY); undefined for an unknown code. */
export function minorDigits(currency: string): number | undefined {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits;
  } catch {
    return undefined;
  }
}

/** An amount as people type it (`1200.50`, `1200,50`) in minor units of a currency; null when it is not one. */
export function minorUnitsOf(amount: string, currency: string): number | null {
  const digits = /^[A-Z]{3}$/.test(currency) ? minorDigits(currency) : undefined;
  const text = amount.trim().replace(',', '.');
  if (digits === undefined || !new RegExp(`^\\d{1,12}(\\.\\d{1,${Math.max(digits, 1)}})?$`).test(text)) return null;
  if (digits === 0 && text.includes('.')) return null;
  return Math.round(Number(text) * 10 ** digits);
}
