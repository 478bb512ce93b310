/**
 * HTML's named character references that text on the web and in mail actually uses: Latin-1
 * (`&eacute;`, `&nbsp;`), typography (`&mdash;`, `&rsquo;`, `&hellip;`, `&euro;`) and a few arrows
 * and signs. HTML's full table (2,231 names) weighed about 13 KiB gzip in the Worker for names no
 * page or mail we read contains; a reference that is not here stays as it was written. Numeric
 * references (`&#233;`) are decoded wherever this table is used.
 */

/** The names of U+00A0 to U+00FF, in order. */
const LATIN_1 =
  'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute ' +
  'micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring ' +
  'AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml ' +
  'times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil ' +
  'egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ' +
  'ugrave uacute ucirc uuml yacute thorn yuml';

/** Other names, with their code points. */
const OTHERS: Record<string, number> = {
  quot: 34,
  amp: 38,
  apos: 39,
  lt: 60,
  gt: 62,
  OElig: 338,
  oelig: 339,
  Scaron: 352,
  scaron: 353,
  Yuml: 376,
  fnof: 402,
  circ: 710,
  tilde: 732,
  ensp: 8194,
  emsp: 8195,
  thinsp: 8201,
  zwnj: 8204,
  zwj: 8205,
  lrm: 8206,
  rlm: 8207,
  ndash: 8211,
  mdash: 8212,
  lsquo: 8216,
  rsquo: 8217,
  sbquo: 8218,
  ldquo: 8220,
  rdquo: 8221,
  bdquo: 8222,
  dagger: 8224,
  Dagger: 8225,
  bull: 8226,
  hellip: 8230,
  permil: 8240,
  prime: 8242,
  Prime: 8243,
  lsaquo: 8249,
  rsaquo: 8250,
  euro: 8364,
  trade: 8482,
  larr: 8592,
  uarr: 8593,
  rarr: 8594,
  darr: 8595,
  harr: 8596,
  minus: 8722,
  infin: 8734,
  asymp: 8776,
  ne: 8800,
  le: 8804,
  ge: 8805,
};

/** Names HTML also reads without their `;` (its legacy ones among these). */
const LEGACY_UPPER = { AMP: 38, LT: 60, GT: 62, QUOT: 34, COPY: 169, REG: 174 };

function buildTable(): Record<string, string> {
  const table: Record<string, string> = {};
  const add = (name: string, code: number, legacy: boolean) => {
    table[`&${name};`] = String.fromCodePoint(code);
    if (legacy) table[`&${name}`] = String.fromCodePoint(code);
  };
  for (const [index, name] of LATIN_1.split(' ').entries()) add(name, 0xa0 + index, true);
  for (const [name, code] of Object.entries(OTHERS)) add(name, code, ['quot', 'amp', 'lt', 'gt'].includes(name));
  for (const [name, code] of Object.entries(LEGACY_UPPER)) add(name, code, true);
  return table;
}

/**
 * The table keyed as postal-mime's (`&name;`, and `&name` for the legacy ones): wrangler.toml's
 * [alias] gives postal-mime this module in place of its own full table.
 */
export const htmlEntities: Record<string, string> = buildTable();
