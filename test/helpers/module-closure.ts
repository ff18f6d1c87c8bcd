import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?!type\b)(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/**
 * The source files a module loads at run time (type-only imports left out), followed through relative imports,
 * and the npm packages they reach, transitively through each package's dependencies.
 */
export function moduleClosure(...entries: string[]): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const addPackage = (name: string) => {
    if (packages.has(name)) return;
    packages.add(name);
    const manifest = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8'));
    for (const dep of Object.keys(manifest.dependencies ?? {})) if (dep !== 'prebuild-install') addPackage(dep); // install-time only
  };
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = m[1] ?? m[2]!;
      if (spec.startsWith('.')) visit(join(dirname(file), spec));
      else if (!spec.startsWith('node:')) addPackage(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  };
  for (const entry of entries) visit(entry);
  return { files: [...files], packages: [...packages] };
}
