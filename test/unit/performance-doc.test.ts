import { describe, expect, it } from 'vitest';
import { BEGIN, END, figuresIn, figuresOf, withFigures } from '../bench/performance-doc.ts';

const DOC = `# Performance\n\nText before.\n\n${BEGIN}\n${END}\n\nText after.\n`;

describe('npm run bench writes its figures into docs/performance.md', () => {
  it('takes the lines a bench prints at the margin as figures, with the goal when report() gave one', () => {
    const out = 'seed: 1,000 calls in 0.2 s\n  (a note)\none-day page p50: 0.61 ms | baseline 0.50 ms | ratio 1.22 | goal ≤ 1.3 (meets goal)\n';
    expect(figuresOf('cati-bench', out)).toEqual([
      { bench: 'cati-bench', label: 'seed', value: '1,000 calls in 0.2 s', goal: '' },
      { bench: 'cati-bench', label: 'one-day page p50', value: '0.61 ms | baseline 0.50 ms | ratio 1.22', goal: '≤ 1.3 (meets goal)' },
    ]);
  });

  it('replaces the rows of the benches that ran, keeps the others, and leaves the text around the table alone', () => {
    const first = withFigures(DOC, [...figuresOf('a-bench', 'x: 1'), ...figuresOf('b-bench', 'y: 2 | goal ≥ 1')], '2026-01-01');
    const second = withFigures(first, figuresOf('a-bench', 'x: 3'), '2026-01-02');
    expect(figuresIn(second)).toEqual([
      { bench: 'a-bench', label: 'x', value: '3', goal: '' },
      { bench: 'b-bench', label: 'y', value: '2', goal: '≥ 1' },
    ]);
    expect(second.startsWith('# Performance\n\nText before.\n\n')).toBe(true);
    expect(second.endsWith('\n\nText after.\n')).toBe(true);
    expect(second.split(BEGIN)).toHaveLength(2);
  });
});
