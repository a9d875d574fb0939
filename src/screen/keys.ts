import type { KeyHint, PaneLine } from './view.js';

// The screen's keys, one table: the footer (over the list, and over a pane) and `?` are made from it, so that the
// footer names only the keys that work for this screen, the most useful first (those that do not fit are left to `?`).

/** What this screen can do with a delivery besides reading it. */
export interface Abilities {
  /** `R`: retry through the service (tail). */
  retries: boolean;
  /** `r`: there is an app to send it again to (--forward-to). */
  sendsAgain: boolean;
}

interface KeyRow {
  /** The key as `?` names it, and as the footer does (`footer`'s own key when shorter). */
  key: string;
  /** On the footer: what it does, in a word or two, and where (over the list, over a pane); none: only in `?`. */
  footer?: { key?: string; does: string; over: 'list' | 'both' };
  /** What `?` says of it. */
  help: string;
  /** Whether it works on this screen; what `?` says instead where it does not. */
  works?: { when: (abilities: Abilities) => boolean; elsewhere: string };
}

const KEYS: KeyRow[] = [
  { key: 'Enter', footer: { does: 'open', over: 'list' }, help: 'open it: headers, body, the signature check, the answer and its time, its attempts' },
  {
    key: 'R',
    footer: { does: 'retry', over: 'both' },
    help: 'retry it through the service: a new attempt in the log',
    works: { when: (can) => can.retries, elsewhere: 'retry through the service (deliveries tail -i)' },
  },
  {
    key: 'r',
    footer: { does: 'send again', over: 'both' },
    help: 'send it again to the app of --forward-to: as it came when no secret was given; with a secret, only a verified one, signed again with it',
    works: { when: (can) => can.sendsAgain, elsewhere: 'send it again to your app: start the command with --forward-to URL' },
  },
  { key: 'd', footer: { does: 'diagnose', over: 'both' }, help: 'its diagnosis: what went wrong, in plain words, and what to do' },
  {
    key: '/',
    footer: { does: 'filter', over: 'list' },
    help: 'filter: words that must all match the event type, the state (verified, failed, 500), the id or the body; event:invoice.* and status:failed match exactly',
  },
  { key: 'p', footer: { does: 'pause', over: 'both' }, help: 'pause the list and resume it: what comes meanwhile waits, nothing is lost' },
  {
    key: 'c  C',
    footer: { key: 'c', does: 'copy id', over: 'both' },
    help: 'copy its id, or its body, through the terminal (OSC 52), where the terminal allows it',
  },
  {
    key: '↑ ↓  j k',
    footer: { key: '↑↓/jk', does: 'select', over: 'list' },
    help: 'select a delivery (in a pane: scroll); PgUp PgDn, Home End (g G) go further',
  },
  { key: 'Esc', help: 'close what is open; in the list, clear the filter' },
  { key: 'q', help: 'leave: back to your screen, with the lines the command prints at its end (exit as when stopped: 0, or 1)' },
  { key: 'Ctrl-C', help: 'leave at once, exit 130' },
];

const works = (row: KeyRow, abilities: Abilities) => row.works?.when(abilities) ?? true;

/** The footer's keys that work, over the list or over a pane (`?` and `q` are added by the view). */
export function footerKeys(abilities: Abilities, over: 'list' | 'pane'): KeyHint[] {
  const rows = KEYS.filter((row) => row.footer && works(row, abilities) && (over === 'list' || row.footer.over === 'both'));
  const hints = rows.map((row): KeyHint => [row.footer!.key ?? row.key, row.footer!.does]);
  return over === 'list' ? hints : [['Esc', 'close'], ['↑↓', 'scroll'], ...hints];
}

/** `?`: every key, and what it does; one that does not work here, where it does. */
export function helpLines(abilities: Abilities): PaneLine[] {
  return KEYS.map((row) => {
    const does = works(row, abilities) ? row.help : row.works!.elsewhere;
    return { text: `${row.key.padEnd(10)}${does}`, hang: 10 };
  });
}
