/**
 * The owner's knowledge (docs/design/knowledge.md): sources, the FTS5 index, asking, and the
 * questions it declined. This file is the module's face: other modules, routes, pages and jobs
 * import only from here.
 */
export { ANSWER_CHARS, DEFAULT_MIN_CONFIDENCE, type Citation, type KnowledgeAnswer, type Passage } from './answer';
export { ASK_LIMITS, type AskLimit, answerFrom, askKnowledge, passagesQuery } from './ask';
export { channelKnowledgeOf } from './channel';
export { answerGap, expertAnswerWrite, gapWrite, listGaps, normalizedQuestion } from './gaps';
export { indexSource } from './crawl-job';
export { knowledgeDeps, knowledgeRoutes } from './routes';
export * from './schemas';
export {
  createSource,
  deleteSource,
  findSource,
  indexMessageSchema,
  type IndexMessage,
  type KnowledgeDeps,
  listSources,
  queueStaleUrlSources,
  requeueStuckSources,
  sourceView,
  syncSource,
} from './sources';
