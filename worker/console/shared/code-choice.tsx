/** @jsxImportSource hono/jsx */
/**
 * A searchable choice for fields typed as codes (languages, regions): the comma-separated text
 * field stays the one that is sent, so the form works without JavaScript; with /embed/console.js a
 * search box appears next to it, offers names and codes, and adds the chosen code to the field.
 */

/** Common language tags (BCP 47); other valid tags can be typed into the field. */
const LANGUAGE_CODES =
  'af ar bg bn ca cs cy da de el en es et eu fa fi fr ga gl he hi hr hu hy id is it ja ka kk ko lt lv mk ms mt ' +
  'nb nl pa pl pt pt-BR ro ru sk sl sq sr sv sw ta te th tl tr uk ur uz vi zh zh-Hans zh-Hant';

/** ISO 3166-1 alpha-2 country codes. */
const REGION_CODES =
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY ' +
  'BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK ' +
  'FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR ' +
  'IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ' +
  'ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM ' +
  'PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF ' +
  'TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW';

export type CodeKind = 'language' | 'region';

/** Each code with its English name, sorted by name ("global" first for regions). */
function choicesOf(kind: CodeKind): [code: string, name: string][] {
  const names = new Intl.DisplayNames(['en'], { type: kind, fallback: 'code' });
  const codes = (kind === 'language' ? LANGUAGE_CODES : REGION_CODES).split(' ');
  const sorted = codes
    .map((code): [string, string] => [code, names.of(code) ?? code])
    .sort((a, b) => a[1].localeCompare(b[1]));
  return kind === 'region' ? [['global', 'Everywhere'], ...sorted] : sorted;
}

const cache = new Map<CodeKind, [string, string][]>();

/** The search box for the text field named `field`, hidden until console.js shows it. */
export function CodeChoice({ field, kind, label }: { field: string; kind: CodeKind; label: string }) {
  const choices = cache.get(kind) ?? choicesOf(kind);
  cache.set(kind, choices);
  const id = `choose-${field}`;
  return (
    <div class="field code-choice" data-code-choice={field} hidden>
      <label for={id}>{label}</label>
      <input id={id} list={`${id}-list`} autocomplete="off" placeholder="Type a name or a code" />
      <datalist id={`${id}-list`}>
        {choices.map(([code, name]) => (
          <option value={code} label={`${name} (${code})`} />
        ))}
      </datalist>
    </div>
  );
}
