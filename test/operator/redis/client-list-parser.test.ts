import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientsBlockedInWait, parseClientList } from '../../../operator/redis/client-list-parser';

/** CLIENT LIST of Redis 7.0.15 during a write pause, captured by fixtures/capture-client-list.ts. */
const duringPause = readFileSync(join(__dirname, 'fixtures', 'client-list-during-pause.txt'), 'utf8');

describe('parseClientList', () => {
  it('reads one entry of name=value fields per client', () => {
    const clients = parseClientList(duringPause);
    expect(clients.map((client) => client.get('name'))).toEqual(['admin', 'writer', 'paused-writer']);
    expect(clients[0]!.get('cmd')).toBe('client|list');
  });

  it('ignores blank lines and keeps empty values', () => {
    expect(parseClientList('\nid=7 name= cmd=ping\n\n').map((client) => [...client])).toEqual([
      [['id', '7'], ['name', ''], ['cmd', 'ping']],
    ]);
  });
});

describe('clientsBlockedInWait', () => {
  it('names the client blocked in WAIT, not the one whose SET waits in the pause', () => {
    const writer = parseClientList(duringPause).find((client) => client.get('name') === 'writer')!;
    expect(clientsBlockedInWait(duringPause)).toEqual([writer.get('id')]);
  });

  it('ignores a client whose last command was a WAIT that already returned', () => {
    expect(clientsBlockedInWait('id=9 flags=N cmd=wait\n')).toEqual([]);
  });
});
