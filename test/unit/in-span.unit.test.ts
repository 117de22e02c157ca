// inSpan with tracing off (no provider registered: every unit test) runs its function as it is, and still
// answers as a span would: the function's result, and a rejection (never a throw) for a function that
// throws before it returns its promise.
import { describe, expect, it } from 'vitest';
import { inSpan, tracingOn } from '../../server/tracing.js';

describe('inSpan with tracing off', () => {
  it('hands on the result, and turns a throw before the promise into a rejection', async () => {
    expect(tracingOn()).toBe(false);
    await expect(inSpan('t', {}, (span) => Promise.resolve(span.isRecording()))).resolves.toBe(false);
    let answered: Promise<unknown> | undefined;
    expect(() => {
      answered = inSpan('t', {}, () => {
        throw new Error('before its promise');
      });
    }).not.toThrow();
    await expect(answered).rejects.toThrow('before its promise');
  });
});
