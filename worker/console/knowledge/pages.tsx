/** @jsxImportSource hono/jsx */
/**
 * The Knowledge page of a workspace (docs/design/knowledge.md): the sources with their status,
 * the forms that add one (a Q&A pair, a pasted document, a URL), "Try your knowledge", the
 * questions it declined with what experts answered (one step to add one as a Q&A pair), and the
 * channels that answer from it first.
 */
import type { KnowledgeAnswer, SourceView } from '../../platform/knowledge';
import { DataTable, StatusPill, when, WorkspaceLayout, wsQuery, type WorkspacePageProps } from '../shared/layout';

export interface GapRow {
  gap_id: string;
  question: string;
  count: number;
  expert_answer: string | null;
  last_asked_at: string;
}

export interface KnowledgeChannel {
  channel_key: string;
  name: string;
  knowledge: { enabled: boolean; min_confidence: number };
}

export interface KnowledgePageProps extends WorkspacePageProps {
  sources: SourceView[];
  gaps: GapRow[];
  channels: KnowledgeChannel[];
  tried?: { question: string; answer: KnowledgeAnswer };
  errors?: Record<string, string>;
  values?: Record<string, string>;
  error?: string;
}

const KINDS: Record<string, string> = { qa: 'Q&A', document: 'Document', url: 'URL' };

function FieldError({ errors, name }: { errors: Record<string, string> | undefined; name: string }) {
  const message = errors?.[name];
  return message ? (
    <p class="field-error" id={`${name}-error`}>
      {message}
    </p>
  ) : null;
}

/** The answer the "Try" box got: the text and its sources, or why it was declined. */
function TriedAnswer({ tried }: { tried: NonNullable<KnowledgePageProps['tried']> }) {
  const { answer } = tried;
  return (
    <div class="tried" aria-live="polite">
      <p>
        <strong>Asked:</strong> <span dir="auto">{tried.question}</span>
      </p>
      {answer.answer ? (
        <>
          <p dir="auto">{answer.answer}</p>
          <p class="muted">
            Confidence {answer.confidence.toFixed(2)} · {answer.chosen_by}
          </p>
          <ul>
            {answer.citations.map((citation) => (
              <li>
                {citation.url ? (
                  <a href={citation.url} target="_blank" rel="noopener noreferrer">
                    {citation.title}
                  </a>
                ) : (
                  citation.title
                )}
              </li>
            ))}
          </ul>
        </>
      ) : (
        <div class="alert warning" role="status">
          {answer.declined === 'no_match'
            ? 'Declined: nothing in your knowledge covers this question. Visitors asking it go to your agents and ' +
              'experts.'
            : `Declined: the best passage covers it with confidence ${answer.confidence.toFixed(2)}, under the ` +
              'threshold. Visitors asking it go to your agents and experts.'}
        </div>
      )}
    </div>
  );
}

/** The workspace's knowledge. */
export function KnowledgePage(props: KnowledgePageProps) {
  const ws = wsQuery(props.current.workspaceId);
  const values = props.values ?? {};
  const kind = values.kind ?? 'qa';
  return (
    <WorkspaceLayout page={props} title="Knowledge" active="knowledge">
      <h1>Knowledge</h1>
      <p class="lead">
        Your own answers, given at once: add your help pages, documents and common questions, and a channel with
        knowledge on answers visitors from them first, with the sources shown. A question your knowledge does not cover
        is never guessed: it goes to your agents and experts as before, and appears under “Questions it could not
        answer”.
      </p>
      {props.error ? (
        <div class="alert error" role="alert">
          {props.error}
        </div>
      ) : null}

      <section class="card" aria-labelledby="try-title">
        <h2 id="try-title">Try your knowledge</h2>
        <form method="post" action={`/integrations/knowledge/try${ws}`} class="inline-form">
          <div class="field grow">
            <label for="try-question">Question</label>
            <input id="try-question" name="question" required maxlength={2000} value={values.question ?? ''} />
          </div>
          <button type="submit" class="button primary">
            Ask
          </button>
        </form>
        {props.tried ? <TriedAnswer tried={props.tried} /> : null}
      </section>

      <section class="card" aria-labelledby="sources-title">
        <h2 id="sources-title">Sources</h2>
        {props.sources.length === 0 ? (
          <p>No sources yet. Add your first below: a question visitors often ask is a good start.</p>
        ) : (
          <DataTable
            rows={props.sources}
            rowId={(source) => source.source_id}
            columns={[
              {
                header: 'Source',
                rowHeader: true,
                cell: (source) => (
                  <>
                    <span dir="auto">{source.title}</span>
                    {source.url && source.url !== source.title ? (
                      <>
                        <br />
                        <small class="muted">{source.url}</small>
                      </>
                    ) : null}
                  </>
                ),
              },
              { header: 'Kind', cell: (source) => KINDS[source.kind] ?? source.kind },
              {
                header: 'Status',
                cell: (source) => (
                  <>
                    <StatusPill status={source.status} />
                    {source.error ? (
                      <>
                        <br />
                        <small class="muted">{source.error}</small>
                      </>
                    ) : null}
                  </>
                ),
              },
              { header: 'Passages', class: 'nowrap', cell: (source) => String(source.chunks) },
              { header: 'Indexed', class: 'nowrap', cell: (source) => when(source.indexed_at) },
              {
                header: 'Actions',
                headerHidden: true,
                cell: (source) => (
                  <div class="row-actions">
                    <form method="post" action={`/integrations/knowledge/sources/${source.source_id}/sync${ws}`}>
                      <button type="submit" class="button small">
                        Re-sync<span class="sr-only"> {source.title}</span>
                      </button>
                    </form>
                    <form method="post" action={`/integrations/knowledge/sources/${source.source_id}/delete${ws}`}>
                      <button type="submit" class="button small danger">
                        Delete<span class="sr-only"> {source.title}</span>
                      </button>
                    </form>
                  </div>
                ),
              },
            ]}
          />
        )}
      </section>

      <section class="card" aria-labelledby="add-title">
        <h2 id="add-title">Add a source</h2>
        <form method="post" action={`/integrations/knowledge/sources${ws}`} class="stack">
          <fieldset class="choice">
            <legend>Kind</legend>
            {(['qa', 'document', 'url'] as const).map((option) => (
              <label class="option">
                <input type="radio" name="kind" value={option} checked={kind === option} />
                <span>
                  {option === 'qa' ? 'A question and its answer' : option === 'document' ? 'A document' : 'A web page'}
                </span>
              </label>
            ))}
          </fieldset>
          <div class="field">
            <label for="source-title">Question or title</label>
            <input
              id="source-title"
              name="title"
              maxlength={500}
              value={values.title ?? ''}
              aria-describedby="source-title-hint"
            />
            <p class="hint" id="source-title-hint">
              For a question and its answer, the question as visitors ask it; for a document, its title.
            </p>
            <FieldError errors={props.errors} name="title" />
          </div>
          <div class="field">
            <label for="source-content">Answer or text</label>
            <textarea
              id="source-content"
              name="content"
              rows={8}
              maxlength={200000}
              aria-describedby="source-content-hint"
            >
              {values.content ?? ''}
            </textarea>
            <p class="hint" id="source-content-hint">
              A document may be Markdown: its headings become the sections answers link to. Larger documents and files
              go through the API (up to 1 MB).
            </p>
            <FieldError errors={props.errors} name="content" />
          </div>
          <div class="field">
            <label for="source-url">Web address</label>
            <input id="source-url" name="url" type="url" maxlength={2000} value={values.url ?? ''} />
            <FieldError errors={props.errors} name="url" />
          </div>
          <div class="field">
            <label for="source-crawl">For a web page, read</label>
            <select id="source-crawl" name="crawl">
              <option value="page" selected={(values.crawl ?? 'page') === 'page'}>
                this page only
              </option>
              <option value="sitemap" selected={values.crawl === 'sitemap'}>
                the pages of this sitemap
              </option>
              <option value="site" selected={values.crawl === 'site'}>
                this page and the pages it links to below it (up to 100)
              </option>
            </select>
          </div>
          <p>
            <button type="submit" class="button primary">
              Add source
            </button>
          </p>
        </form>
      </section>

      <section class="card" aria-labelledby="gaps-title">
        <h2 id="gaps-title">Questions it could not answer</h2>
        {props.gaps.length === 0 ? (
          <p>None waiting. When your knowledge declines a visitor’s question, it is listed here, most asked first.</p>
        ) : (
          <ul class="gaps">
            {props.gaps.map((gap) => (
              <li id={gap.gap_id}>
                <p>
                  <strong dir="auto">{gap.question}</strong>{' '}
                  <span class="muted">
                    asked {gap.count === 1 ? 'once' : `${gap.count} times`}, last {when(gap.last_asked_at)}
                  </span>
                </p>
                <form method="post" action={`/integrations/knowledge/gaps/${gap.gap_id}/add${ws}`} class="stack">
                  <div class="field">
                    <label for={`answer-${gap.gap_id}`}>
                      {gap.expert_answer ? 'An expert answered (edit it before adding)' : 'Your answer'}
                    </label>
                    <textarea id={`answer-${gap.gap_id}`} name="answer" rows={3} maxlength={10000} required>
                      {gap.expert_answer ?? ''}
                    </textarea>
                  </div>
                  <p>
                    <button type="submit" class="button">
                      Add as a question and answer
                    </button>
                  </p>
                </form>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section class="card" aria-labelledby="channels-title">
        <h2 id="channels-title">Channels that answer from it</h2>
        {props.channels.length === 0 ? (
          <p>
            No channels yet. <a href={`/integrations${ws}`}>Create one</a>.
          </p>
        ) : (
          props.channels.map((channel) => (
            <form
              method="post"
              action={`/integrations/knowledge/channels/${channel.channel_key}${ws}`}
              class="inline-form"
              aria-label={`Knowledge on ${channel.name}`}
            >
              <label class="option grow">
                <input type="checkbox" name="enabled" value="1" checked={channel.knowledge.enabled} />
                <span>
                  Answer on <strong>{channel.name}</strong> from the knowledge first
                </span>
              </label>
              <div class="field">
                <label for={`min-${channel.channel_key}`}>Least confidence</label>
                <input
                  id={`min-${channel.channel_key}`}
                  name="min_confidence"
                  type="number"
                  min="0.05"
                  max="1"
                  step="0.05"
                  value={String(channel.knowledge.min_confidence)}
                />
              </div>
              <button type="submit" class="button">
                Save<span class="sr-only"> {channel.name}</span>
              </button>
            </form>
          ))
        )}
      </section>
    </WorkspaceLayout>
  );
}
