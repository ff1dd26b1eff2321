import type { FastifyInstance } from 'fastify';
import { getConversation, listConversations } from '../../app/conversations.ts';
import { callerOf, visibleChannels } from '../route-access.ts';
import { sendResult } from '../wire-errors.ts';
import { applicationError } from '../schemas/errors.ts';
import { ConversationListQuery, ConversationPage, ConversationParams, ConversationThread, ConversationThreadQuery } from '../schemas/conversations.ts';
import type { RouteDeps } from '../route-deps.ts';

// Scope `channel`, as the message log: a caller sees the channels it holds a scope of, both ways.
const access = { scope: 'channel', access: 'read' } as const;
const tags = ['conversations'];

/** The Conversations page's reads: the people who wrote to the account, and one person's thread. */
export function conversationRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {
  app.get<{ Querystring: ConversationListQuery }>('/v1/conversations', {
    schema: {
      summary: 'The people who wrote to the account, newest activity first, with the channels used and the last message', tags,
      querystring: ConversationListQuery, response: { 200: ConversationPage, 400: applicationError },
    },
    config: { access },
  }, async (request, reply) => sendResult(reply, await listConversations(deps, callerOf(request).account.id, request.query, visibleChannels(request))));

  app.get<{ Params: ConversationParams; Querystring: ConversationThreadQuery }>('/v1/conversations/:person', {
    schema: {
      summary: 'One person\'s thread: herald\'s messages to them and theirs back, oldest first, the latest 200 (older by cursor), with the channel to reply on',
      tags, params: ConversationParams, querystring: ConversationThreadQuery,
      response: { 200: ConversationThread, 400: applicationError, 404: applicationError },
    },
    config: { access },
  }, async (request, reply) => sendResult(reply, await getConversation(deps, callerOf(request).account.id, request.params.person, request.query, visibleChannels(request))));
}
