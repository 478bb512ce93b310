/**
 * The ledger's tests, in one workerd: each test file starts a runtime of its own (about 3 s of
 * CPU), so an area's cases share one and stay in files by subject (ledger-*.cases.ts). They share
 * its D1 and its clock too: the fees move the clock forward a month, so they run last.
 */
import './ledger-books.cases';
import './ledger-contracts.cases';
import './ledger-pages.cases';
import './ledger-rules.cases';
import './ledger-statements.cases';
import './payments.cases';
import './ledger-fees.cases';
