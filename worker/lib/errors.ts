/**
 * One error model for the whole platform (RFC 9457 problem+json).
 * A route throws `ApiError`; `app.onError` renders it. Codes are stable and listed in the README.
 */
import type { z } from 'zod';

export const errorCatalog = {
  malformed_json: { status: 400, title: 'Malformed JSON' },
  malformed_form: { status: 400, title: 'Malformed form' },
  missing_credentials: { status: 401, title: 'Missing credentials' },
  malformed_authorization: { status: 401, title: 'Malformed Authorization header' },
  invalid_token: { status: 401, title: 'Invalid token' },
  invalid_credentials: { status: 401, title: 'Invalid credentials' },
  session_required: { status: 401, title: 'Sign-in required' },
  key_revoked: { status: 401, title: 'API key revoked' },
  key_expired: { status: 401, title: 'API key expired' },
  invalid_session: { status: 401, title: 'Invalid visitor session' },
  invalid_signature: { status: 400, title: 'Invalid signature' },
  admin_required: { status: 403, title: 'Administrator required' },
  provider_required: { status: 403, title: 'Provider account required' },
  provider_inactive: { status: 403, title: 'Provider not active' },
  not_claimer: { status: 403, title: 'Not the claimer' },
  forbidden: { status: 403, title: 'Forbidden' },
  email_unverified: { status: 403, title: 'Email address not confirmed' },
  second_factor_required: { status: 403, title: 'Two-step sign-in required' },
  csrf_rejected: { status: 403, title: 'Cross-site request refused' },
  key_mismatch: { status: 403, title: 'key_id does not match the bearer key' },
  origin_not_allowed: { status: 403, title: 'Origin not allowed' },
  key_inactive: { status: 403, title: 'key_id names an inactive key' },
  insufficient_scope: { status: 403, title: 'Insufficient scope' },
  workspace_inactive: { status: 403, title: 'Workspace or organisation inactive' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  payments_unavailable: { status: 404, title: 'Card payments are not set up' },
  idempotency_in_progress: { status: 409, title: 'Idempotent request still in progress' },
  conflict: { status: 409, title: 'Conflict' },
  invalid_transition: { status: 409, title: 'Invalid transition' },
  already_claimed: { status: 409, title: 'Already claimed' },
  capacity_reached: { status: 409, title: 'Capacity reached' },
  recently_released: { status: 409, title: 'Recently released' },
  email_taken: { status: 409, title: 'Email cannot be used' },
  last_owner: { status: 409, title: 'Last owner' },
  profile_changed: { status: 409, title: 'Profile changed' },
  lead_closed: { status: 409, title: 'Lead closed' },
  refund_not_allowed: { status: 409, title: 'Refund not allowed' },
  credit_reference_reused: { status: 409, title: 'Credit reference reused' },
  contract_overlap: { status: 409, title: 'Contract overlap' },
  entitlement_exceeded: { status: 402, title: 'Entitlement exceeded' },
  insufficient_credits: { status: 402, title: 'Insufficient credits' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  validation_failed: { status: 422, title: 'Validation failed' },
  upgrade_required: { status: 426, title: 'WebSocket upgrade required' },
  unsupported_execution_mode: { status: 422, title: 'Unsupported execution mode' },
  key_id_required: { status: 422, title: 'key_id required' },
  unknown_key_id: { status: 422, title: 'Unknown key_id' },
  unknown_domain: { status: 422, title: 'Unknown domain' },
  profile_incomplete: { status: 422, title: 'Profile incomplete' },
  contract_mismatch: { status: 422, title: 'Contract mismatch' },
  currency_mismatch: { status: 422, title: 'Currency mismatch' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused' },
  rate_limited: { status: 429, title: 'Rate limit exceeded' },
  quota_exceeded: { status: 429, title: 'Quota exceeded' },
  too_many_attempts: { status: 429, title: 'Too many attempts' },
  internal_error: { status: 500, title: 'Internal error' },
  agent_unavailable: { status: 502, title: 'No agent answered' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof errorCatalog;

export interface FieldError {
  /** JSON Pointer (RFC 6901) into the request body; "" is the body as a whole. */
  pointer: string;
  detail: string;
}

export interface ApiErrorOptions {
  errors?: FieldError[];
  headers?: Record<string, string>;
  /** Extra members of the problem object, such as `missing_scopes`. */
  extensions?: Record<string, unknown>;
}

/** An error with a stable code; thrown anywhere, rendered once by the app's error handler. */
export class ApiError extends Error {
  readonly status: number;
  readonly title: string;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly options: ApiErrorOptions = {},
  ) {
    super(detail);
    this.status = errorCatalog[code].status;
    this.title = errorCatalog[code].title;
  }
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  request_id: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

/** The RFC 9457 body of an error, its `type` pointing at the error's entry in the docs. */
export function problemBody(error: ApiError, requestId: string, docsBaseUrl: string): ProblemBody {
  return {
    ...error.options.extensions,
    type: `${docsBaseUrl}/docs/protocol#error-${error.code}`,
    title: error.title,
    status: error.status,
    detail: error.detail,
    code: error.code,
    request_id: requestId,
    ...(error.options.errors ? { errors: error.options.errors } : {}),
  };
}

function escapePointerSegment(segment: PropertyKey): string {
  return String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A JSON Pointer (RFC 6901) for a path into the request body. */
export function toPointer(path: readonly PropertyKey[]): string {
  return path.map((segment) => `/${escapePointerSegment(segment)}`).join('');
}

/** One entry per offending field (its first problem), with unknown keys reported at their own pointer. */
export function fieldErrorsFromZod(error: z.ZodError): FieldError[] {
  const entries = error.issues.flatMap((issue): FieldError[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        pointer: toPointer([...issue.path, key]),
        detail: `Unknown field "${key}".`,
      }));
    }
    return [{ pointer: toPointer(issue.path), detail: issue.message }];
  });
  return entries.filter((entry, index) => entries.findIndex((other) => other.pointer === entry.pointer) === index);
}
