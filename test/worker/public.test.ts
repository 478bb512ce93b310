/**
 * The public surface: the front page, the widget's public routes and the console's pages: the
 * cases, in one workerd. Each test file starts a runtime of its own (about 3 s of CPU), so the
 * area's cases share one and stay in files by subject (*.cases.ts).
 */
import './public.cases';
import './widget-public.cases';
import './pages.cases';
import './read-replicas.cases';
