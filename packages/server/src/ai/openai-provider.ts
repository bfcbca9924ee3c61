import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { AiConfig } from '../config.js';
import { type ChatMessage, type ChatProvider, type ChatReply, type ChatRequest, ProviderError } from './provider.js';

export const defaultAiTimeoutMs = 60_000;

function toOpenAi(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls.length > 0
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    default:
      return { role: message.role, content: message.content };
  }
}

/**
 * Any server speaking OpenAI's chat-completions protocol: OpenAI, Azure OpenAI, Ollama, vLLM,
 * llama.cpp, LM Studio. One retry covers a dropped connection; a second failure ends the question.
 */
export class OpenAiCompatibleProvider implements ChatProvider {
  private readonly client: OpenAI;

  constructor(private readonly config: AiConfig) {
    this.client = new OpenAI({
      baseURL: config.baseUrl,
      // Local servers need no key, but the client refuses to start without one.
      apiKey: config.apiKey || 'not-needed',
      timeout: config.timeoutMs ?? defaultAiTimeoutMs,
      maxRetries: 1,
    });
  }

  async complete(request: ChatRequest): Promise<ChatReply> {
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.client.chat.completions.create({
        model: this.config.model,
        messages: request.messages.map(toOpenAi),
        tools: request.tools.map((tool) => ({
          type: 'function' as const,
          function: { name: tool.name, description: tool.description, parameters: tool.parameters },
        })),
        tool_choice: request.toolChoice,
      });
    } catch (error) {
      throw new ProviderError(error instanceof Error ? error.message : String(error), { cause: error });
    }
    const choice = completion.choices?.[0];
    if (!choice?.message) throw new ProviderError('The provider answered without a message.');
    const toolCalls = (choice.message.tool_calls ?? []).flatMap((call) =>
      call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
    );
    return {
      content: choice.message.content ?? null,
      toolCalls,
      tokens: completion.usage?.total_tokens ?? 0,
      model: completion.model || this.config.model,
    };
  }
}
