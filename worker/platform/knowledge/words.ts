/**
 * Words as the knowledge compares them (docs/design/knowledge.md): a question's content words
 * (no stop words, no syntax), a light stem so that "verify" finds "verifies", and the FTS5 MATCH
 * string built only from quoted words, so no visitor input is ever read as FTS5's query language
 * (quotes, operators, column filters, `*`, `^`, NEAR).
 */

/** Words that carry no topic, in the languages the widget speaks most (a question's glue). */
const STOP_WORDS = new Set(
  // English
  (
    'a an the and or but if of to in on at by for from with without about into over under as is are was were be ' +
    'been being do does did doing have has had i me my we our you your he she it its they them their this that ' +
    'these those there here what which who whom whose when where why how can could should would will shall may ' +
    'might must not no yes so than then too very just also any some all each every more most other such only own ' +
    'same again once please thanks thank hello hi get got make use using used want need tell know way one ' +
    'happen happens happened mean means many much gets lets let come comes contain contains ' +
    // English as it is typed: contractions' halves, and the filler of a question said as to a person
    're ve ll don doesn didn isn aren wasn couldn wouldn shouldn won wont cant dont doesnt didnt isnt whats hows ' +
    'guys hey ok okay actually really just still already anyone someone something anything possible able ' +
    // German
    'der die das ein eine einen einem einer und oder aber wenn von zu im in am an auf für mit ohne über unter als ' +
    'ist sind war waren sein bin bist hat haben hatte ich mich mein wir unser du dein er sie es ihr wie was wer wo ' +
    'warum wann kann können soll sollte muss nicht kein ja so dann auch nur bitte danke hallo gibt den dem des ' +
    'meine meinen meinem meiner meines deine deinen deinem deiner unsere unseren unserem unserer ihre ihren ' +
    'ihrem ihrer seine seinen seinem seiner welche welcher welches welchen ' +
    // Spanish
    'el la los las un una unos unas y o pero si de del al en con sin sobre para por como es son era ser estar está ' +
    'yo mi nosotros tu usted él ella ellos qué que cual cuál quién dónde donde cuándo cómo puedo puede no sí gracias ' +
    'hola favor hay se lo le me te mis sus su ' +
    // French
    'le les une des et ou mais de du au aux en dans avec sans sur pour par comme est sont était être je moi mon nous ' +
    'vous il elle ils elles quoi qui où quand comment pourquoi peux peut pas ne oui merci bonjour'
  ).split(' '),
);

/**
 * The most words of a question that a search uses (the rest add little and cost a posting list
 * each); 25 at most, for D1's 5 terms to a compound SELECT, nested once (ask.ts).
 */
export const MAX_QUERY_WORDS = 24;

/** Lower case, accents removed, compatibility forms folded (as `remove_diacritics 2` does in the index). */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

/** Every word of a text (letters and digits), folded. */
export function wordsOf(text: string): string[] {
  return fold(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** A question's content words: no stop words, at least two characters (or a number), each once, in order. */
export function contentWords(question: string): string[] {
  const seen = new Set<string>();
  for (const word of wordsOf(question)) {
    if (word.length > 40 || STOP_WORDS.has(word)) continue;
    if (word.length < 2 && !/\d/.test(word)) continue;
    seen.add(word);
    if (seen.size >= MAX_QUERY_WORDS) break;
  }
  return [...seen];
}

const SUFFIXES: Array<[string, string]> = [
  ['ational', 'ate'],
  ['ization', 'ize'],
  ['ations', 'ate'],
  ['ation', 'ate'],
  ['edly', ''],
  ['ies', 'y'],
  ['ied', 'y'],
  ['ed', ''],
  ['ly', ''],
];

/**
 * A light stem (English endings, and plural `s`), enough to tell that two forms are one word.
 * "-ing" stays: "opening" is not "open" (sameWord still matches "handling" with "handle").
 */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  for (const [suffix, replacement] of SUFFIXES)
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) return word.slice(0, -suffix.length) + replacement;
  // Plurals and third persons: boxes, wishes → box, wish; takes, webhooks → take, webhook (not "class").
  if (/(s|x|z|ch|sh)es$/.test(word) && word.length > 5) return word.slice(0, -2);
  if (word.endsWith('s') && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** Whether two stems are one word: equal, or sharing a long common start (verify / verification). */
export function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const shorter = Math.min(a.length, b.length);
  if (shorter < 5) return false;
  let common = 0;
  while (common < shorter && a[common] === b[common]) common++;
  return common >= 5 && common >= shorter * 0.8;
}

/**
 * The FTS5 MATCH string for a question: its content words, each quoted as a string (a `"` inside
 * is doubled, though words never hold one), joined by OR. Null when nothing is left to search for.
 */
export function matchQuery(question: string): string | null {
  const words = contentWords(question);
  if (words.length === 0) return null;
  return words.map(quotedWord).join(' OR ');
}

/** One word as an FTS5 string (a `"` inside doubled, though words never hold one): never syntax. */
export function quotedWord(word: string): string {
  return `"${word.replaceAll('"', '""')}"`;
}

/** The commonest short words of the languages the widget speaks most, for telling a text's language. */
const MARKERS: Record<string, ReadonlySet<string>> = Object.fromEntries(
  Object.entries({
    en: 'the and is are to of you your for with this that it on be can',
    de: 'der die das und ist nicht sie mit den ein eine auf für sich auch',
    es: 'el la los las que y es para con una por del se no su',
    fr: 'le la les et est des vous pour une dans que pas sur du au',
    it: 'il di che e è per non una sono della con gli le si',
    pt: 'o os que e é para com uma não do da em no se',
    nl: 'de het een en van is niet je op te dat met voor zijn',
    pl: 'i w nie na się jest że do z to jak po czy od',
  }).map(([language, words]) => [language, new Set(fold(words).split(' '))]),
);

/**
 * The language a text is most likely written in, by its commonest short words (a source that
 * does not say its own), or null when too few of them tell. Enough for "the help is in English".
 */
export function guessLanguage(text: string): string | null {
  const words = fold(text.slice(0, 20_000)).match(/\p{L}+/gu) ?? [];
  const counts = Object.entries(MARKERS).map(([language, markers]) => ({
    language,
    hits: words.reduce((sum, word) => sum + (markers.has(word) ? 1 : 0), 0),
  }));
  counts.sort((a, b) => b.hits - a.hits);
  const [best, next] = counts;
  // At least 4 such words, and clearly more than any other language's.
  return best && best.hits >= 4 && best.hits >= 1.5 * (next?.hits ?? 0) ? best.language : null;
}
