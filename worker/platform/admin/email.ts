/** Admin routes for email: a test email through the whole path, and where any one email is. */
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../env';
import { ApiError } from '../../lib/errors';
import { emailStatus, queueTestEmail } from '../email';
import { findUserByEmail } from '../identity';
import { emailStatusSchema, testEmailSchema } from './responses';
import { defineAdminRoute, idParam } from './define';

/** Registers the email routes. */
export function registerEmailRoutes(app: OpenAPIHono<AppEnv>) {
  defineAdminRoute(
    app,
    {
      method: 'post',
      path: '/api/admin/emails/test',
      response: testEmailSchema,
      body: z.strictObject({ user_email: z.string().trim().min(3).max(254) }),
      status: 201,
      description: 'A test email to a user of the platform, through the outbox, the queue and SMTP.',
    },
    async ({ body }, c) => {
      const user = await findUserByEmail(c.var.db, body.user_email);
      const id = await queueTestEmail(c.var.db, user.user_id, c.var.services.mail);
      return { email_id: id, status: 'queued' as const };
    },
  );

  defineAdminRoute(
    app,
    {
      method: 'get',
      path: '/api/admin/emails/{email_id}',
      response: emailStatusSchema,
      params: idParam('email_id', 'eml'),
      status: 200,
      description: 'Where an email is: kind, status, attempts, the last error, when it was sent. Never its address.',
    },
    async ({ params }, c) => {
      const status = await emailStatus(c.var.db, params.email_id);
      if (!status) throw new ApiError('not_found', `No email ${params.email_id}.`);
      return status;
    },
  );
}
