/**
 * Turns the figures `npm run bench` prints into the generated table of docs/performance.md: every line a bench
 * prints at the left margin is one figure (indented lines are notes and stay on the console). The table sits
 * between two markers; a run of some benches replaces their rows and keeps the others'.
 */

/** Opens the generated part of docs/performance.md. */
export const BEGIN = '<!-- bench:begin (written by npm run bench; edit the text around it, not this table) -->';
/** Closes the generated part of docs/performance.md. */
export const END = '<!-- bench:end -->';

/** One printed figure: which bench, what, and the value (with its baseline and goal when the bench gave them). */
export interface Figure {
  bench: string;
  label: string;
  value: string;
  goal: string;
}

/** The figures in one bench's output. */
export function figuresOf(bench: string, output: string): Figure[] {
  const out: Figure[] = [];
  for (const line of output.split('\n')) {
    if (!line.trim() || /^\s/.test(line) || line.startsWith('(') || line.startsWith('==')) continue;
    const colon = line.indexOf(': ');
    const label = colon > 0 ? line.slice(0, colon) : '';
    const rest = colon > 0 ? line.slice(colon + 2) : line;
    const goalAt = rest.indexOf(' | goal ');
    out.push({
      bench,
      label,
      value: goalAt >= 0 ? rest.slice(0, goalAt) : rest,
      goal: goalAt >= 0 ? rest.slice(goalAt + ' | goal '.length) : '',
    });
  }
  return out;
}

const cell = (s: string): string => s.replace(/\|/g, '\\|').trim();
const uncell = (s: string): string => s.replace(/\\\|/g, '|').trim();

/** The rows already in the document's generated table. */
export function figuresIn(doc: string): Figure[] {
  const b = doc.indexOf(BEGIN), e = doc.indexOf(END);
  if (b < 0 || e < b) return [];
  const rows: Figure[] = [];
  for (const line of doc.slice(b + BEGIN.length, e).split('\n')) {
    if (!line.startsWith('| ') || line.startsWith('| Bench ')) continue;
    const cells = line.slice(2, -2).split(/ (?<!\\)\| /);
    if (cells.length !== 4) continue;
    const [bench, label, value, goal] = cells.map(uncell) as [string, string, string, string];
    rows.push({ bench: bench.replace(/`/g, ''), label, value, goal });
  }
  return rows;
}

/** The document with its generated table holding `fresh` for the benches that ran and the old rows of the others. */
export function withFigures(doc: string, fresh: Figure[], when: string): string {
  const ran = new Set(fresh.map((f) => f.bench));
  const rows = [...figuresIn(doc).filter((f) => !ran.has(f.bench)), ...fresh].sort((a, b) => a.bench.localeCompare(b.bench));
  const table = [
    BEGIN,
    '',
    `Last written ${when} on ${'`'}${process.platform}${'`'}, Node ${process.version}. Each bench's rows are from its own latest run.`,
    '',
    '| Bench | Figure | Value | Goal |',
    '|---|---|---|---|',
    ...rows.map((f) => `| ${'`'}${f.bench}${'`'} | ${cell(f.label)} | ${cell(f.value)} | ${cell(f.goal)} |`),
    '',
    END,
  ].join('\n');
  const b = doc.indexOf(BEGIN), e = doc.indexOf(END);
  if (b < 0 || e < b) return `${doc.trimEnd()}\n\n${table}\n`;
  return doc.slice(0, b) + table + doc.slice(e + END.length);
}
