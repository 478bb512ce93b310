import { describe, expect, it } from 'vitest';
import { framesByConversation } from './fan-out';

describe('the frames of committed events', () => {
  it('carries a knowledge answer’s sources on its frame, and none on another message', () => {
    const sources = [{ title: 'Help › Returns', url: 'https://shop.example.com/help#returns' }];
    const message = (id: string, extra = {}) => ({
      id: `evt_${id}`,
      workspaceId: 'ws_1',
      type: 'conversation.message_created' as const,
      data: {
        message_id: `msg_${id}`,
        conversation_id: 'conv_1',
        role: 'agent' as const,
        author_name: null,
        text: 'From “Help”: 30 days.',
        created_at: '2026-12-02T00:00:00.000Z',
        ...extra,
      },
    });
    const frames = framesByConversation([message('1', { sources }), message('2')]).get('conv_1')!.frames;
    expect(frames).toEqual([
      { type: 'message', message: { ...message('1', { sources }).data, conversation_id: undefined } },
      { type: 'message', message: { ...message('2').data, conversation_id: undefined } },
    ]);
  });
});
