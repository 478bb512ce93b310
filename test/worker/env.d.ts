import type { D1Migration } from 'cloudflare:test';

// The test pool's own bindings (vitest.config.ts), beside those wrangler.toml declares.
declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      ADMIN_TOKEN: string;
      TEST_MAIL_SINK_URL: string;
      PASSWORD_PEPPER: string;
      SECRETS_KEY: string;
    }
  }
}
