import { describe, expect, it } from 'vitest';
import { conversationReducer as reduce, deliveryMark, initialConversation, merge } from './conversation';
import type { IntakeAnswer, MessageView } from './types';

const view = (id: string, role: MessageView['role'], text: string, author_name: string | null = null): MessageView => ({
  message_id: id,
  role,
  text,
  author_name,
  created_at: '2026-11-26T10:00:00.000Z',
});
const answer = (messages: MessageView[], next: IntakeAnswer['next'] = 'continue'): IntakeAnswer => ({
  session_id: 'egv_session',
  reply: messages.at(-1)?.text ?? '',
  next,
  messages,
});

describe('the panel’s conversation', () => {
  it('keeps the thread in id order when two messages arrive the other way round', () => {
    const thread = merge([], [view('msg_1', 'visitor', 'One'), view('msg_3', 'provider', 'Three', 'Ann')]);
    const late = merge(thread, [view('msg_2', 'provider', 'Two', 'Ann')]);
    expect(late.map((message) => message.id)).toEqual(['msg_1', 'msg_2', 'msg_3']);
    expect(merge(late, [view('msg_2', 'provider', 'Two', 'Ann')])).toBe(late);
  });

  it('keeps a knowledge answer’s sources, and names no agent for it', () => {
    const sources = [{ title: 'Help › Returns', url: 'https://shop.example.com/help#returns' }];
    const [message] = merge([], [{ ...view('msg_9', 'agent', 'From “Help”: 30 days.'), sources }]);
    expect(message).toEqual({ id: 'msg_9', role: 'assistant', text: 'From “Help”: 30 days.', sources });
  });

  it('completes a knowledge answer shown without its sources by the copy that has them', () => {
    const sources = [{ title: 'Help › Returns', url: null }];
    const bare = merge([], [view('msg_9', 'agent', 'From “Help”: 30 days.')]);
    const [message] = merge(bare, [{ ...view('msg_9', 'agent', 'From “Help”: 30 days.'), sources }]);
    expect(message).toMatchObject({ id: 'msg_9', sources });
    // A copy without them never takes them away.
    const kept = merge([message!], [view('msg_9', 'agent', 'From “Help”: 30 days.')]);
    expect(kept[0]).toBe(message);
  });

  it('shows a message being sent at once, and the server’s copy takes its place (never twice)', () => {
    const sending = reduce(initialConversation(undefined, []), { type: 'sending', text: 'Hello' });
    expect(sending).toMatchObject({ busy: true, messages: [{ role: 'visitor', text: 'Hello' }] });
    const answered = reduce(sending, {
      type: 'answered',
      answer: answer([view('msg_1', 'visitor', 'Hello'), view('msg_2', 'agent', 'Hi!', 'FAQ bot')]),
    });
    expect(answered.messages).toEqual([
      { id: 'msg_1', role: 'visitor', text: 'Hello' },
      { id: 'msg_2', role: 'assistant', text: 'Hi!', by: 'FAQ bot' },
    ]);
    expect(answered).toMatchObject({ busy: false, sessionId: 'egv_session', contactOpen: false });
    // The live socket delivers the same messages again: nothing doubles.
    expect(reduce(answered, { type: 'arrived', messages: [view('msg_2', 'agent', 'Hi!')] }).messages).toHaveLength(2);
  });

  it('opens the contact form when the answer asks for it, and thanks once after it', () => {
    const asked = reduce(initialConversation('egv_s', []), {
      type: 'answered',
      answer: answer([view('msg_1', 'visitor', 'Help'), view('msg_2', 'agent', 'Leave your email')], 'collect_contact'),
    });
    expect(asked.contactOpen).toBe(true);
    const done = reduce(asked, {
      type: 'contact-sent',
      answer: { ...answer([view('msg_3', 'agent', 'Thanks, we will write')], 'done'), reference: 'D-ABC123' },
    });
    expect(done).toMatchObject({
      view: 'success',
      contactOpen: false,
      success: { replyId: 'msg_3', reference: 'D-ABC123' },
    });
    expect(reduce(done, { type: 'back-to-chat' }).view).toBe('chat');
  });

  it('a failure says why, keeps the fields’ reasons, and ends the wait', () => {
    const failed = reduce(reduce(initialConversation(undefined, []), { type: 'sending' }), {
      type: 'failed',
      message: 'Some contact details are required.',
      fieldErrors: { email: 'email is required by this channel.' },
    });
    expect(failed).toMatchObject({ busy: false, error: 'Some contact details are required.' });
    expect(failed.contactErrors).toEqual({ email: 'email is required by this channel.' });
  });

  it('live frames: the expert typing, their read mark, the claimer’s name, a closed session', () => {
    let state = initialConversation('egv_s', []);
    state = reduce(state, { type: 'answered', answer: answer([view('msg_1', 'visitor', 'Hi')]) });
    expect(deliveryMark(state)?.mark).toBe('Delivered');
    state = reduce(state, { type: 'frame', frame: { type: 'typing', role: 'provider', active: true } });
    expect(state.typing).toBe(true);
    expect(reduce(state, { type: 'typing-quiet' }).typing).toBe(false);
    // The visitor's own typing echo is not the expert's.
    expect(reduce(state, { type: 'frame', frame: { type: 'read', role: 'visitor', up_to: 'msg_1' } }).readUpTo).toBe(
      null,
    );
    state = reduce(state, { type: 'frame', frame: { type: 'read', role: 'provider', up_to: 'msg_1' } });
    expect(deliveryMark(state)?.mark).toBe('Read');
    state = reduce(state, { type: 'frame', frame: { type: 'lead', status: 'claimed', claimed_by_name: 'Dana' } });
    expect(state.claimer).toBe('Dana');
    state = reduce(state, { type: 'frame', frame: { type: 'lead', status: 'open', claimed_by_name: null } });
    expect(state.claimer).toBe(null);
    state = reduce(state, { type: 'frame', frame: { type: 'closed', reason: 'lead_won' } });
    expect(state.closed).toBe(true);
    // Writing again reopens it.
    expect(reduce(state, { type: 'answered', answer: answer([view('msg_9', 'visitor', 'Again')]) }).closed).toBe(false);
  });

  it('a claim puts away the "an expert will get back to you" card', () => {
    let state = initialConversation('egv_s', []);
    state = reduce(state, {
      type: 'contact-sent',
      answer: { ...answer([view('msg_1', 'system', 'Thanks')], 'done'), reference: 'D-ABC123' },
    });
    expect(state.view).toBe('success');
    state = reduce(state, { type: 'frame', frame: { type: 'lead', status: 'claimed', claimed_by_name: 'Dana' } });
    expect(state).toMatchObject({ view: 'chat', claimer: 'Dana' });
    // The contact form asked for before the claim is put away too.
    state = reduce(state, { type: 'contact', open: true });
    state = reduce(state, { type: 'frame', frame: { type: 'lead', status: 'open', claimed_by_name: null } });
    state = reduce(state, { type: 'frame', frame: { type: 'lead', status: 'claimed', claimed_by_name: 'Dana' } });
    expect(state.contactOpen).toBe(false);
  });

  it('merges an expert’s reply with their name, in order', () => {
    expect(merge([], [view('msg_1', 'provider', 'Hello', 'Dana Reyes')])).toEqual([
      { id: 'msg_1', role: 'provider', text: 'Hello', author: 'Dana Reyes' },
    ]);
  });
});
