/**
 * Where a visitor came from, as the widget reports it: the site, the page, the referrer and the
 * campaign. A conversation keeps its first touch; its demand and lead carry it too. A leaf, like
 * vocabulary.ts: the widget's wire types import it without reaching any service.
 */
import { z } from '@hono/zod-openapi';

const shortText = (max: number) => z.string().trim().max(max);

export const attributionSchema = z
  .strictObject({
    source_site: shortText(200).optional(),
    page_url: shortText(2000).optional(),
    referrer: shortText(2000).optional(),
    campaign: z
      .strictObject({
        utm_source: shortText(200).optional(),
        utm_medium: shortText(200).optional(),
        utm_campaign: shortText(200).optional(),
        utm_term: shortText(200).optional(),
        utm_content: shortText(200).optional(),
      })
      .optional(),
  })
  .openapi('Attribution');
/** Where a visitor came from, as the widget reports it (first touch for UTM fields). */
export type Attribution = z.infer<typeof attributionSchema>;
