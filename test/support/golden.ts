import * as fs from 'node:fs';
import * as path from 'node:path';

const GOLDEN_DIR = path.join(__dirname, '..', 'golden');

/**
 * Compares text with a golden file under test/golden. Run with UPDATE_GOLDEN=1 to rewrite the files after an
 * intended change, then review the diff in git.
 */
export function expectMatchesGolden(fileName: string, actual: string): void {
  const file = path.join(GOLDEN_DIR, fileName);
  if (process.env.UPDATE_GOLDEN === '1') {
    fs.mkdirSync(GOLDEN_DIR, { recursive: true });
    fs.writeFileSync(file, actual);
  }
  if (!fs.existsSync(file)) {
    throw new Error(`golden file ${file} is missing: run UPDATE_GOLDEN=1 npm run test:unit and review it`);
  }
  expect(actual).toBe(fs.readFileSync(file, 'utf8'));
}
