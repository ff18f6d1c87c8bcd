/**
 * A file that cannot be read as its rules say (docs/files.md#errors): thrown by the readers, which run in
 * worker threads too, and turned into the request's 400/413 (or the job's failure with this message) by
 * whoever started the read.
 */
export class FileError extends Error {
  constructor(
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
    this.name = 'FileError';
  }
}

/** More data rows than a read may take (400). */
export const tooManyRows = (maxRows: number) =>
  new FileError(400, `The file has more than ${maxRows.toLocaleString('en-US')} data rows; split it into smaller files`);
