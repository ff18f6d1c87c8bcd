/**
 * `npm run users -- [--data-dir D] [--database URL] create --name N --role R | list [--json] | lock N | unlock N |
 * password N` (docs/people.md#roles). Passwords are read from stdin (without echo on a terminal), never taken as an
 * argument. Works while the server runs: sessions live in the database, so a lock or a new password ends the
 * user's sessions on the server's next request.
 */
import type { UserStore } from './auth/users.ts';
import { checkName, checkPassword, checkRole } from './auth/user-input.ts';

export const USERS_USAGE = 'usage: users [--data-dir D] [--database URL] create --name N --role administrator|supervisor|viewer | list [--json] | lock NAME | unlock NAME | password NAME (passwords are read from stdin)';

/** Reads one line from a terminal without echoing it (raw mode; Backspace edits, Ctrl-C/Ctrl-D give up). */
function readHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let value = '';
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003' || ch === '\u0004') return done(new Error('cancelled'));
        if (ch === '\u007f' || ch === '\b') value = [...value].slice(0, -1).join('');
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** The first line of stdin when it is a pipe or a file. */
async function readFirstLine(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n') || text.length > 8192) break;
  }
  return text.split(/\r?\n/, 1)[0] ?? '';
}

/** A new password from stdin: asked twice on a terminal, the first line of a pipe; checked by the rules. */
async function readNewPassword(name: string): Promise<string> {
  if (!process.stdin.isTTY) return checkPassword(await readFirstLine());
  const first = checkPassword(await readHidden(`New password for ${name} (at least 12 characters): `));
  if ((await readHidden('Again: ')) !== first) throw new Error('The two passwords differ; nothing changed');
  return first;
}

async function byName(users: UserStore, name: string | undefined): Promise<number> {
  if (!name) throw new Error(USERS_USAGE);
  const row = await users.byName(name);
  if (!row) throw new Error(`No user named '${name}' (see users list)`);
  return row.id;
}

/** Runs one `users` command over `users`, writing what it did to stdout; throws an Error with a sentence. */
export async function runUsersCommand(users: UserStore, positionals: string[], values: { name?: string; role?: string; json?: boolean }): Promise<void> {
  const [command, arg] = positionals;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  switch (command) {
    case 'create': {
      const name = checkName(values.name);
      const role = checkRole(values.role);
      const user = await users.create({ name, role, password: await readNewPassword(name) });
      out(`created user ${user.UserId} '${user.Name}' (${user.Role})`);
      return;
    }
    case 'list': {
      const list = await users.list();
      if (values.json) out(JSON.stringify(list, null, 2));
      else if (list.length === 0) out('no users');
      else for (const u of list) out(`${u.UserId}\t${u.Name}\t${u.Role}\t${u.Locked ? 'locked' : 'active'}\tlast sign-in ${u.LastLoginAt ?? 'never'}`);
      return;
    }
    case 'lock':
    case 'unlock': {
      const id = await byName(users, arg);
      await users.update(id, { locked: command === 'lock' });
      out(`${command}ed user '${arg}'${command === 'lock' ? ' (its sessions are ended)' : ''}`);
      return;
    }
    case 'password': {
      const id = await byName(users, arg);
      await users.update(id, { password: await readNewPassword(arg!) });
      out(`changed the password of '${arg}' (its sessions are ended)`);
      return;
    }
    default:
      throw new Error(USERS_USAGE);
  }
}
