/**
 * Whether this deployment takes cards (docs/design/billing.md#card-top-ups): both Stripe secrets set, and
 * what a top-up may be in each currency. Unset, the platform works as before and the console
 * says how to pay by bank transfer.
 */
import type Stripe from 'stripe';
import type { Settings } from '../../env';

/** A currency's top-up bounds, in minor units. */
export interface TopUpLimits {
  minMinor: number;
  maxMinor: number;
}

/** Stripe's settings, when the deployment has them. */
export interface PaymentsConfig {
  secretKey: string;
  webhookSecret: string;
  /** Local only: the stand-in's origin (scripts/stripe-stand-in.mjs). */
  apiUrl?: string;
  limits: Map<string, TopUpLimits>;
}

/** `EUR:5-5000,USD:5-5000` as bounds in minor units (currencies of two decimals). */
export function topUpLimitsOf(text: string): Map<string, TopUpLimits> {
  const minor = (major: string) => Math.round(Number(major) * 100);
  return new Map(
    text
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const [currency, range] = part.split(':') as [string, string];
        const [min, max] = range.split('-') as [string, string];
        return [currency, { minMinor: minor(min), maxMinor: minor(max) }];
      }),
  );
}

/** The deployment's payments, or null when either Stripe secret is unset. */
export function paymentsConfig(settings: Settings): PaymentsConfig | null {
  if (!settings.STRIPE_SECRET_KEY || !settings.STRIPE_WEBHOOK_SECRET) return null;
  return {
    secretKey: settings.STRIPE_SECRET_KEY,
    webhookSecret: settings.STRIPE_WEBHOOK_SECRET,
    apiUrl: settings.STRIPE_API_URL,
    limits: topUpLimitsOf(settings.PAYMENTS_CURRENCIES),
  };
}

/**
 * Stripe's own SDK, on fetch and Web Crypto (its worker build); pointed at the local stand-in
 * when STRIPE_API_URL says so. One network retry: a webhook Stripe sends again is the real retry.
 * Imported when first used: an isolate that takes no payment never evaluates it (startup, tests).
 */
export async function stripeOf(config: PaymentsConfig): Promise<Stripe> {
  const { default: StripeSdk } = await import('stripe');
  const api = config.apiUrl ? new URL(config.apiUrl) : undefined;
  return new StripeSdk(config.secretKey, {
    httpClient: StripeSdk.createFetchHttpClient(),
    maxNetworkRetries: 1,
    timeout: 10_000,
    ...(api
      ? {
          host: api.hostname,
          port: Number(api.port || (api.protocol === 'https:' ? 443 : 80)),
          protocol: api.protocol === 'https:' ? 'https' : 'http',
        }
      : {}),
  });
}
