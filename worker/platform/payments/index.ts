/** Money in: card top-ups of escrows through Stripe (docs/design/billing.md#card-top-ups). */
export { checkTopUp, escrowPayments, type PaymentView, startTopUp, type TopUpTarget } from './checkout';
export { type PaymentsConfig, paymentsConfig, stripeOf, topUpLimitsOf } from './config';
export { paymentRoutes } from './routes';
export { type PaymentOutcome, receiveStripeWebhook } from './webhook';
export { type AdminPaymentRow, paymentsOverview, type ReconciliationRow } from './reconcile';
export { type HeldEscrow, heldEscrows, liftHold } from './holds';
