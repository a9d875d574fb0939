import { InvalidArgumentError } from 'commander';

/** commander argument parsers: a bad value is a usage error (exit 2) before anything runs. */
export function integerIn(min: number, max: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      throw new InvalidArgumentError(`must be an integer from ${min} to ${max}.`);
    }
    return Number(value);
  };
}

/** Path segments of the interface that are not ids: `webhooks get webhook-events` would read the catalog as a webhook. */
const NOT_IDS: Record<string, string> = {
  'webhook-events': 'it is the path of the event catalog (whsvc events)',
  'webhook-deliveries': 'it is the path of the delivery log (whsvc deliveries list WEBHOOK_ID)',
  '.': 'it would name the collection, not one of its items',
  '..': 'it would name the collection, not one of its items',
};

/** A webhook or delivery id, refused before any request when it cannot be one. */
export function resourceId(kind: 'webhook' | 'delivery') {
  return (value: string): string => {
    if (value.trim() === '') throw new InvalidArgumentError(`a ${kind} id cannot be empty.`);
    const why = Object.hasOwn(NOT_IDS, value) ? NOT_IDS[value] : undefined;
    if (why) throw new InvalidArgumentError(`${JSON.stringify(value)} is not a ${kind} id: ${why}.`);
    return value;
  };
}
