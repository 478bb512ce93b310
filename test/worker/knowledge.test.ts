/**
 * The owner's knowledge: its sources and index, the channel's first-party answers, and answers
 * worded by a model: the cases, in one workerd. Each test file starts a runtime of its own (about
 * 3 s of CPU), so the area's cases share one and stay in files by subject (*.cases.ts).
 */
import './knowledge.sources.cases';
import './knowledge.channel.cases';
import './knowledge.model.cases';
import './knowledge.limits.cases';
