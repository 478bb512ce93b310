/**
 * The ledger's face (docs/design/billing.md): contracts, escrows, the double-entry ledger, what an
 * execution and a claim are charged, usage, statements and refunds.
 */
export {
  ContractCharge,
  type ContractUsageLine,
  type MeterIncrement,
  type MeterQuantities,
  type MeterRow,
  overageUnits,
} from './charges';
export {
  type ContractTerms,
  contractInForce,
  contractInForceSql,
  createContract,
  endContract,
  forgetContracts,
  listContracts,
} from './contracts';
export {
  balanceOf,
  balances as escrowBalances,
  fundingAccount,
  LEDGER_REFUSALS,
  ledgerRefused,
  revenueAccount,
  transferInsert,
  transferWritten,
} from './ledger';
export { creditEscrow, escrowView, openProviderEscrow, providerEscrow, providerEscrowSql } from './escrows';
export {
  decideRefund,
  erasedLeadRefunds,
  feeInOtherCurrency,
  insufficientCredits,
  leadFeeInsert,
  leadFeePaid,
  type LeadPrice,
  listRefundRequests,
  providerCredits,
  REFUND_WINDOW_MS,
  requestRefund,
} from './lead-fees';
export * from './schemas';
export { type MeterEvent, meterEvents, meterEventSchema } from './meter-events';
export { sweepBilling } from './sweep';
export { listStatements, statementsCsv, workspaceEscrowIds } from './statements';
export { billingRoutes } from './routes';
export { usageView } from './usage';
