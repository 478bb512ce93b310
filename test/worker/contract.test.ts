/**
 * The API's contract: what every route takes and refuses, as the OpenAPI document says: the cases,
 * in one workerd. Each test file starts a runtime of its own (about 3 s of CPU), so the area's
 * cases share one and stay in files by subject (*.cases.ts).
 */
import './input.cases';
import './validation.cases';
import './forms.cases';
import './openapi.cases';
