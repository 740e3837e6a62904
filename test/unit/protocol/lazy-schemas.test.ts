import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

/**
 * Counts zod schema constructions from now on: every ZodType constructor reads
 * `globalConfig.localeError` once (to install the English messages when none are set), and nothing else
 * reads it unless a parse fails. `stop` restores the plain property.
 */
function countConstructions(): { count: () => number; stop: () => void } {
  const config = z.core.globalConfig;
  let localeError = config.localeError;
  let count = 0;
  Object.defineProperty(config, 'localeError', {
    configurable: true,
    enumerable: true,
    get: () => {
      count++;
      return localeError;
    },
    set: (value: typeof localeError) => {
      localeError = value;
    },
  });
  return {
    count: () => count,
    stop: () => {
      Object.defineProperty(config, 'localeError', {
        configurable: true,
        enumerable: true,
        writable: true,
        value: localeError,
      });
    },
  };
}

describe('protocol schemas are built on first use', () => {
  it('importing the protocol builds none; a method builds what it uses, not the others', async () => {
    const counter = countConstructions();
    try {
      // The counter sees a construction (else the zero below would prove nothing).
      z.string();
      expect(counter.count()).toBe(1);

      vi.resetModules();
      const protocol = await import('../../../src-preload/protocol');
      expect(counter.count()).toBe(1);

      expect(protocol.ClientRequests['thread/list'].params.parse({ limit: 5 })).toEqual({ limit: 5 });
      const forList = counter.count() - 1;
      expect(forList).toBeGreaterThan(0);

      for (const { params, result } of Object.values(protocol.ClientRequests)) {
        expect(params._zod.def.type).toBeTypeOf('string');
        expect(result._zod.def.type).toBeTypeOf('string');
      }
      for (const params of Object.values(protocol.ServerNotifications))
        expect(params._zod.def.type).toBeTypeOf('string');
      const forAll = counter.count() - 1;
      // `thread/list` alone builds a small part of what every method needs.
      expect(forList * 10).toBeLessThan(forAll);
    } finally {
      counter.stop();
    }
  });

  it('a schema built through another keeps one identity: the metadata and derived schemas see the same object', async () => {
    const protocol = await import('../../../src-preload/protocol');
    // AskForApproval carries `.meta()`; the export reads it through the exported schema.
    expect(z.globalRegistry.get(protocol.AskForApproval)).toEqual({ 'x-weft-extension-values': ['on-failure'] });
    const optional = protocol.Thread.optional();
    expect(optional._zod.def.innerType).toBe(protocol.Thread);
  });
});
