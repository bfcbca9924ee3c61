/**
 * What the tool loop needs from a language model, independent of any vendor's wire format, so
 * another provider can be added beside the OpenAI-compatible one without touching the loop.
 */
export interface ToolCall {
  id: string;
  name: string;
  /** The arguments exactly as the model wrote them (JSON text, possibly malformed). */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  messages: ChatMessage[];
  tools: ToolDefinition[];
  /** `none` asks for a final text answer even though tools are described. */
  toolChoice: 'auto' | 'none';
}

export interface ChatReply {
  content: string | null;
  toolCalls: ToolCall[];
  /** Tokens the provider reports for this round (prompt + completion); 0 when it reports none. */
  tokens: number;
  /** The model the provider says answered. */
  model: string;
}

export interface ChatProvider {
  complete(request: ChatRequest): Promise<ChatReply>;
}

/** The provider failed, timed out or answered something unusable: the question cannot finish. */
export class ProviderError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProviderError';
  }
}
