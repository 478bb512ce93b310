/** /docs/knowledge: the owner's help center as the first answer, its sources, the gate, gaps and the model option. */
import { blocks, table } from '../text';
import type { DocsPageSource } from './context';

export const knowledgePage: DocsPageSource = {
  slug: 'knowledge',
  title: 'Your knowledge',
  summary: 'Answer visitors from your own help center first: sources, how sure an answer must be, gaps, languages.',
  markdown: (context) =>
    blocks(
      'Your knowledge is your own help: your help center or documentation site, documents and common ' +
        'questions with their answers. A channel with knowledge on answers a visitor from it first, with the ' +
        'sources shown and “Talk to a person” beside it; a question it does not cover is never guessed: it goes ' +
        'to your agents and experts exactly as without it, and you see it under “Questions it could not answer”. ' +
        `Everything here is on the console's [Knowledge page](${context.consoleUrl}/integrations/knowledge) and ` +
        'in the API.',
      '## Sources {#sources}',
      table(
        ['Kind', 'What it is', 'Read'],
        [
          ['A question and its answer', 'The question as visitors ask it, and your answer', 'At once'],
          [
            'A document',
            'Markdown, plain text or HTML you paste or send (up to 1 MB)',
            'At once; a large one on the queue',
          ],
          [
            'A web address',
            'One page, a sitemap (`/sitemap.xml`), or a site followed from its start page (up to 500 pages)',
            'On the queue, in a minute or so; “Re-sync” reads it again',
          ],
        ],
      ),
      'Pages are read as a reader sees them: headings become the passages’ paths and link anchors, tables stay ' +
        'tables, and navigation, scripts, footers and code blocks are left out. A crawl fetches only public https ' +
        'addresses, follows your `robots.txt` (a disallowed page is not read), reads at most 2 pages a second from ' +
        'one host, and keeps within your workspace’s limits: 20 MB of text and 20,000 passages together. A source ' +
        'past a limit stops and says which. A web address is listed by its page’s title once read.',
      '## How an answer is chosen {#answers}',
      'A question is looked up in your passages only, never another workspace’s, in one database read. The ' +
        'passages are ranked by BM25F, the standard ranking of search engines: a word of the question found in a ' +
        'passage’s title counts more than in its headings, and there more than in its text; a word most of your ' +
        'passages hold says little, a rare one a lot. The answer is the sentences of the best passage that say ' +
        'what was asked (at most 600 characters), introduced with where they come from, and the passage’s link.',
      '**How sure it must be.** Each answer has a confidence from 0 to 1: how much of the question the best ' +
        'passage holds and says in one place, and how clearly it beats the best passage of any other page. Below ' +
        'the channel’s threshold (0.5 by default, set per channel on the Knowledge page) the question is declined ' +
        'and handed on. At 0.5, on two help centers with hand-checked questions, no more than 1 answer in 20 was ' +
        'wrong and every question the pages do not answer was declined. A lower threshold answers more and ' +
        'risks more; “Try your knowledge” on the Knowledge page shows what a visitor would get, with the ' +
        'confidence, before you change it.',
      '## Questions it could not answer {#gaps}',
      'Every declined question is counted once per wording, most asked first. When an expert then answers that ' +
        'visitor, the answer is kept beside the question, and one click adds it as a question-and-answer source: ' +
        'the next visitor who asks gets it at once. Insights count the answers, the declines and the ' +
        'conversations handed to a person after an answer (the resolution rate).',
      '## Languages {#languages}',
      'Without a model, a question is answered only when its words match your pages, so a question in another ' +
        'language than your help is usually declined. The visitor is told so in their own language (“Our help ' +
        'pages are written in English…”) and handed to an expert as any declined question. A source’s language ' +
        'is what you set, or read from its text.',
      '## A model, optionally {#model}',
      'The platform’s operator may configure a language model (an OpenAI-compatible endpoint, or Workers AI). ' +
        'It never decides whether there is an answer: only a confident answer’s best passages are sent to it, to ' +
        'word the answer in the visitor’s language and cite them; an answer that cites nothing it was given, or ' +
        'takes over 5 seconds, falls back to the sentences themselves. A declined question in another language ' +
        'is translated and looked up once more.',
      '## The API {#api}',
      table(
        ['Route', 'What it does'],
        [
          ['`POST /api/knowledge/sources`', 'Add a source: a `qa`, a `document` or a `url` (`knowledge:write`)'],
          ['`GET /api/knowledge/sources`', 'The sources with their state, passages and size (`knowledge:read`)'],
          ['`POST /api/knowledge/sources/{source_id}/sync`', 'Read a web address again, 6 an hour (`knowledge:write`)'],
          [
            '`POST /api/knowledge/ask`',
            'Ask: `answer`, `citations`, `confidence`, `declined`, `knowledge_language`… (`knowledge:read`)',
          ],
          ['`GET /api/knowledge/gaps`', 'The questions it declined, most asked first (`knowledge:read`)'],
        ],
      ),
      'Questions are limited to 60 a minute per key and 600 per workspace. Assistants reach the same through ' +
        'the [MCP server](/docs/mcp)’s `ask_knowledge` tool. Every route, with its fields: the ' +
        '[API reference](/docs/reference).',
    ),
};
