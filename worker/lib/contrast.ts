/**
 * WCAG contrast for configured colours. Site owners pick brand colours; visitors must still be
 * able to read the text. The public widget configuration resolves the text colour with it, and the
 * panel re-checks what the console's editor previews. Pure and dependency-free: the widget bundles it.
 */
const HEX = /^#[0-9a-f]{6}$/i;

/** A safe #rrggbb colour, or the fallback: nothing else may reach a stylesheet. */
export function safeColor(value: unknown, fallback: string): string {
  return typeof value === 'string' && HEX.test(value) ? value.toLowerCase() : fallback;
}

function luminance(hex: string): number {
  const channel = (offset: number) => {
    const value = parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** The WCAG contrast ratio of two colours (1 to 21). */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** The configured text colour on `background`, or black/white when it would be hard to read. */
export function readableOn(background: string, preferred: string): string {
  if (contrastRatio(background, preferred) >= 4.5) return preferred;
  return contrastRatio(background, '#000000') >= contrastRatio(background, '#ffffff') ? '#000000' : '#ffffff';
}
