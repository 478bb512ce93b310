/** @jsxImportSource hono/jsx */
/**
 * The Knowledge page's routes (docs/design/knowledge.md): the page, adding, re-syncing and
 * deleting sources, trying a question, answering a gap, and a channel's knowledge setting. The
 * services are the knowledge module's; an owner's role allows each (the access policy).
 */
import type { Context } from 'hono';
import type { AppEnv } from '../../env';
import { resolvePlatformUrls } from '../../env';
import { ApiError } from '../../lib/errors';
import { isLanguage } from '../../lib/i18n';
import { knowledgeOf, listChannels, updateChannel } from '../../platform/channels';
import {
  answerGap,
  askKnowledge,
  channelKnowledgeSchema,
  createSource,
  createSourceSchema,
  deleteSource,
  knowledgeDeps,
  listGaps,
  listSources,
  syncSource,
} from '../../platform/knowledge';
import { newPageApp } from '../shared/app';
import { formErrors, readForm } from '../shared/form-input';
import { wsQuery } from '../shared/layout';
import { noticeOf } from '../shared/notices';
import { consolePageGuards, currentUser } from '../shared/session';
import { userAuditContext, workspaceContext } from '../shared/workspace';
import { type KnowledgePageProps, KnowledgePage } from './pages';

type Extra = Pick<KnowledgePageProps, 'tried' | 'errors' | 'values' | 'error'>;

async function renderPage(c: Context<AppEnv>, extra: Extra = {}, status: 200 | 404 | 422 = 200) {
  const context = await workspaceContext(c, 'knowledge.read');
  const workspaceId = context.current.workspaceId;
  // After the membership check (the primary's), the page's lists from a replica's session.
  const [sources, gaps, channels] = await Promise.all([
    listSources(c.var.reads, workspaceId),
    listGaps(c.var.reads, workspaceId),
    listChannels(c.var.reads, workspaceId),
  ]);
  c.header('Cache-Control', 'no-store');
  return c.html(
    <KnowledgePage
      user={currentUser(c)}
      {...context}
      sources={sources}
      gaps={gaps}
      channels={channels.map((row) => ({ channel_key: row.channelKey, name: row.name, knowledge: knowledgeOf(row) }))}
      notice={noticeOf(c)}
      {...extra}
    />,
    status,
  );
}

const back = (c: Context<AppEnv>, workspaceId: string, notice: string, anchor: string) =>
  c.redirect(`/integrations/knowledge${wsQuery(workspaceId)}&notice=${notice}#${anchor}`, 303);

/** The source a form describes, in the API's shape (its checks are the API's). */
function sourceBodyOf(form: Record<string, string>) {
  const kind = form.kind ?? 'qa';
  if (kind === 'url') return { kind, url: (form.url ?? '').trim(), crawl: { mode: form.crawl || 'page' } };
  if (kind === 'document')
    return { kind, title: form.title ?? '', content_type: 'text/markdown', content: form.content ?? '' };
  return { kind: 'qa', question: form.title ?? '', answer: form.content ?? '' };
}

/** Field names of the form for the API's pointers (a Q&A pair's question and answer are its title and text). */
function formFieldErrors(errors: Record<string, string>): Record<string, string> {
  const named: Record<string, string> = {};
  for (const [field, message] of Object.entries(errors)) {
    const name = field === 'question' ? 'title' : field === 'answer' ? 'content' : field.split('.')[0]!;
    named[name] ??= message;
  }
  return named;
}

/** The Knowledge page's routes. */
export function knowledgePageRoutes() {
  const app = newPageApp();
  for (const path of ['/integrations/knowledge', '/integrations/knowledge/*']) app.use(path, ...consolePageGuards);

  app.get('/integrations/knowledge', (c) => renderPage(c));

  app.post('/integrations/knowledge/sources', async (c) => {
    const context = await workspaceContext(c, 'knowledge.write');
    const form = await readForm(c);
    const parsed = createSourceSchema.safeParse(sourceBodyOf(form));
    if (!parsed.success) return renderPage(c, { errors: formFieldErrors(formErrors(parsed.error)), values: form }, 422);
    try {
      const source = await createSource(
        c.var.db,
        { ...userAuditContext(c), workspaceId: context.current.workspaceId },
        parsed.data,
        knowledgeDeps(c),
      );
      // An indexed source can be tried at once: the page opens at the box to try it in.
      if (source.status !== 'queued') return back(c, context.current.workspaceId, 'source_added', 'try-title');
      return back(c, context.current.workspaceId, 'source_queued', 'sources-title');
    } catch (error) {
      if (error instanceof ApiError && error.code === 'validation_failed')
        return renderPage(c, { error: error.detail, values: form }, 422);
      throw error;
    }
  });

  app.post('/integrations/knowledge/sources/:sourceId/delete', async (c) => {
    const context = await workspaceContext(c, 'knowledge.write');
    await deleteSource(
      c.var.db,
      { ...userAuditContext(c), workspaceId: context.current.workspaceId },
      c.req.param('sourceId'),
      c.var.services.clock.now(),
    );
    return back(c, context.current.workspaceId, 'source_deleted', 'sources-title');
  });

  app.post('/integrations/knowledge/sources/:sourceId/sync', async (c) => {
    const context = await workspaceContext(c, 'knowledge.write');
    await syncSource(c.var.db, context.current.workspaceId, c.req.param('sourceId'), knowledgeDeps(c));
    return back(c, context.current.workspaceId, 'source_synced', 'sources-title');
  });

  app.post('/integrations/knowledge/try', async (c) => {
    const context = await workspaceContext(c, 'knowledge.read');
    const form = await readForm(c);
    const question = (form.question ?? '').trim().slice(0, 2000);
    if (!question) return renderPage(c, { errors: { question: 'Write a question.' } }, 422);
    const language = isLanguage(form.language) ? form.language : 'en';
    // Trying a question writes nothing (no caller's limit here): a replica's read.
    const answer = await askKnowledge(c.var.reads, context.current.workspaceId, question, {
      language,
      model: c.var.services.answerModel,
    });
    return renderPage(c, { tried: { question, answer }, values: { question } });
  });

  app.post('/integrations/knowledge/gaps/:gapId/add', async (c) => {
    const context = await workspaceContext(c, 'knowledge.write');
    const form = await readForm(c);
    const answer = (form.answer ?? '').trim();
    if (!answer || answer.length > 10_000)
      return renderPage(c, { error: 'Write an answer of 1 to 10,000 characters.' }, 422);
    await answerGap(
      c.var.db,
      { ...userAuditContext(c), workspaceId: context.current.workspaceId },
      c.req.param('gapId'),
      answer,
      knowledgeDeps(c),
    );
    return back(c, context.current.workspaceId, 'gap_answered', 'gaps-title');
  });

  app.post('/integrations/knowledge/channels/:channelKey', async (c) => {
    const context = await workspaceContext(c, 'channels.write');
    const form = await readForm(c);
    const parsed = channelKnowledgeSchema.safeParse({
      enabled: form.enabled === '1',
      min_confidence: Number(form.min_confidence ?? '0.5'),
    });
    if (!parsed.success) return renderPage(c, { error: 'The least confidence is a number from 0.05 to 1.' }, 422);
    const urls = resolvePlatformUrls(c.var.settings, c.req.url);
    await updateChannel(
      c.var.db,
      context.current,
      userAuditContext(c),
      c.req.param('channelKey'),
      { knowledge: parsed.data },
      urls,
    );
    return back(c, context.current.workspaceId, 'knowledge_saved', 'channels-title');
  });

  return app;
}
