// A model client that finds its API key when each request starts rather than when the thread was
// opened: a key saved in Settings is used by the next turn of every open thread, without a restart.
import { keyFor, type KeyStore } from '../config/key-store';
import { missingKeyMessage, type ResolvedProvider } from '../config/providers';
import { ModelError } from '../model/errors';
import type { ModelClient, ModelEvent, ModelRequest } from '../model/types';
import { modelClientFor } from './create-session';

export function keyedModelClient(
  provider: ResolvedProvider,
  store: KeyStore | undefined,
  build: (p: ResolvedProvider) => ModelClient = modelClientFor,
): ModelClient {
  let cached: { key: string | null; client: ModelClient } | null = null;
  return {
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
      const found = await keyFor(provider, store);
      if (found === null && provider.envKey !== null) {
        throw new ModelError(`No API key for ${provider.name}: ${missingKeyMessage(provider) ?? ''}`, 'Unauthorized', {
          retryable: false,
          phase: 'request',
        });
      }
      const key = found?.key ?? null;
      if (cached === null || cached.key !== key) cached = { key, client: build({ ...provider, apiKey: key }) };
      try {
        yield* cached.client.stream(request, signal);
      } catch (error) {
        // Say which provider and address failed: "Mock (http://127.0.0.1:9/v1/responses): could not reach…".
        if (error instanceof ModelError)
          throw new ModelError(
            `${provider.name} (${endpointOf(provider)}): ${error.message}`,
            error.info,
            error.options,
          );
        throw error;
      }
    },
  };
}

/** The URL a request to the provider goes to. */
function endpointOf(provider: ResolvedProvider): string {
  return `${provider.baseUrl}/${provider.wireApi === 'chat' ? 'chat/completions' : 'responses'}`;
}
