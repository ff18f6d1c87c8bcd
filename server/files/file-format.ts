import { badRequest } from '../errors.ts';

/** What an uploaded file is (docs/files.md#formats): delimited text, tab-separated text (`.tsv`) or an Excel workbook. */
export type FileFormat = 'text' | 'tsv' | 'xlsx';

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
/** Every zip signature (local file, empty archive, spanned): a text file starting with one is a zip. */
const ZIP_SIGNATURES = [ZIP_MAGIC, [0x50, 0x4b, 0x05, 0x06], [0x50, 0x4b, 0x07, 0x08]];

function startsWith(bytes: Uint8Array, magic: number[]): boolean {
  return magic.every((b, i) => bytes[i] === b);
}

const hasUtf16Bom = (b: Uint8Array) => (b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff);

/** The extensions a file may have, as the error names them. */
export const FILE_EXTENSIONS = '.csv, .tsv, .txt or .xlsx';

/**
 * Decides the format from the file name's extension AND the content (docs/files.md#formats): `.xlsx` must be a
 * zip (`PK\x03\x04`); `.csv`/`.tsv`/`.txt` must not be a zip or otherwise binary (NUL bytes without a UTF-16
 * BOM, checked in the first 64 KiB). An empty file, another extension or a mismatch → 400 saying which. `head`
 * is the file's start (≥64 KiB when the file is that long), `size` its full length.
 */
export function detectFormat(fileName: string, head: Uint8Array, size = head.length): FileFormat {
  const bytes = head;
  const ext = /\.([^./\\]+)$/.exec(fileName)?.[1]?.toLowerCase();
  if (ext !== 'csv' && ext !== 'tsv' && ext !== 'txt' && ext !== 'xlsx') {
    throw badRequest(`The file '${fileName}' must be a ${FILE_EXTENSIONS} file`);
  }
  if (size === 0) throw badRequest('The file is empty');
  if (ext === 'xlsx') {
    if (!startsWith(bytes, ZIP_MAGIC)) throw badRequest('The file has the extension .xlsx but its content is not an Excel workbook (zip)');
    return 'xlsx';
  }
  if (ZIP_SIGNATURES.some((magic) => startsWith(bytes, magic))) {
    throw badRequest(`The file has the extension .${ext} but its content is a zip archive (an .xlsx?); use the .xlsx extension`);
  }
  if (!hasUtf16Bom(bytes) && bytes.subarray(0, 65536).includes(0)) {
    throw badRequest(`The file has the extension .${ext} but its content is binary, not text`);
  }
  return ext === 'tsv' ? 'tsv' : 'text';
}
