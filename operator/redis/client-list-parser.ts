/** One line of `CLIENT LIST`: its `name=value` fields. */
export type ClientListEntry = ReadonlyMap<string, string>;

/** Splits `CLIENT LIST` output (one client per line, space-separated `name=value` fields). Pure. */
export function parseClientList(text: string): ClientListEntry[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const fields = new Map<string, string>();
      for (const field of line.split(' ')) {
        const equals = field.indexOf('=');
        if (equals > 0) fields.set(field.slice(0, equals), field.slice(equals + 1));
      }
      return fields;
    });
}

/**
 * Ids of the clients blocked in `WAIT` (flag `b`, last command `wait`). Redis closes the connection of every
 * blocked client when the server turns replica, so a switchover releases these first with `CLIENT UNBLOCK`.
 */
export function clientsBlockedInWait(text: string): string[] {
  return parseClientList(text)
    .filter((client) => client.get('cmd') === 'wait' && (client.get('flags') ?? '').includes('b'))
    .flatMap((client) => {
      const id = client.get('id');
      return id === undefined ? [] : [id];
    });
}
