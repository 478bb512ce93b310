/**
 * The compiled catalogs' shapes (scripts/compile-i18n.mjs writes compiled/): one function per
 * message, taking the message's values.
 */
import type { VisitorMessagesKey, WidgetMessagesKey } from './compiled/keys';

/** A message's values: the names its ICU text uses. */
export type MessageValues = Record<string, string | number>;
type Compiled<Key extends string> = Record<Key, (values?: MessageValues) => string>;

/** The chat panel's messages. */
export type WidgetMessages = Compiled<WidgetMessagesKey>;
/** The platform's own words to a visitor: replies, emails, pages. */
export type VisitorMessages = Compiled<VisitorMessagesKey>;
