import { describe, it, expect } from 'vitest';
import { unprinted } from '../../../src/cli/render/delta.js';

describe('unprinted: the part of a streamed text still to print', () => {
  it("is the core's `appended` when the text grew by exactly that (the text is not sliced)", () => {
    // A text whose tail differs from the hint shows which one was used.
    expect(unprinted('Hello, wxrld', 5, ', world')).toBe(', world');
  });
  it('is the slice after what was printed when there is no hint or it does not fit', () => {
    expect(unprinted('Hello, world', 5, undefined)).toBe(', world');
    expect(unprinted('Hello, world', 0, ', world')).toBe('Hello, world');
    expect(unprinted('Hello, world!', 5, ', world')).toBe(', world!');
  });
});
