import { dialog, type BrowserWindow } from 'electron';

/** Native open dialog for the user's own certificate or key file (Settings → Server); null when cancelled. */
export async function chooseTlsFile(win: BrowserWindow | null, kind: unknown): Promise<string | null> {
  if (kind !== 'cert' && kind !== 'key') throw new Error("kind must be 'cert' or 'key'");
  const options = {
    title: kind === 'cert' ? 'Choose the certificate (PEM)' : 'Choose its private key (PEM)',
    properties: ['openFile' as const],
    filters: [
      kind === 'cert' ? { name: 'Certificate', extensions: ['pem', 'crt', 'cer'] } : { name: 'Private key', extensions: ['pem', 'key'] },
      { name: 'All files', extensions: ['*'] },
    ],
  };
  const answer = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
  return answer.canceled ? null : (answer.filePaths[0] ?? null);
}
