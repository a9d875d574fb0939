// The service's answers, typed once: the names follow the interface, and the
// project's words (docs/architecture.md): the interface's "delivery" record is
// an attempt, here `Attempt`. A number a double would change keeps its text (exact-json.ts): its fields are
// ServiceNumber, read with numberValue and numberText.

import type { ServiceNumber } from '../exact-json.js';
import type { DeliveryStatus } from '../protocol/status.js';

/** A list's page envelope. Fields this version does not know are kept (--json prints them). */
export interface Page<T = Record<string, unknown>> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
  [extra: string]: unknown;
}

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  /** Only in the answer to its creation. */
  signing_secret?: string;
  created_at?: string;
  updated_at?: string;
}

/** One attempt: the interface's "delivery" record, with the sandbox's extensions when the service sends them. */
export interface Attempt {
  id: string;
  /** The delivery this attempt belongs to (the sandbox's extension; the id of its first attempt). */
  delivery_id?: string;
  webhook_id?: string;
  event: string;
  /** One of the interface's three words, as the service wrote it (not checked: statusLabel and statusWords show another word sanitized, as it came). */
  status: DeliveryStatus;
  /** The endpoint's HTTP status; 0 (or null, from another service) when it gave no answer. */
  response_code: ServiceNumber | null;
  /** The attempt's number. */
  attempts?: ServiceNumber;
  created_at: string;
  /** When the delivery's automatic retry is due, on a failed delivery's newest attempt (the sandbox's extension). */
  next_attempt_at?: string | null;
  /** Why the attempt failed, and what the endpoint answered (the sandbox's extension, on retrieve). */
  failure_reason?: string | null;
  response_body?: string | null;
  signature?: string;
  payload?: unknown;
}

/** An event type of the catalog. */
export interface EventType {
  type: string;
  module: string;
  desc: string;
}

/** An automatic attempt the sandbox's clock has due (`/_sandbox/clock`). */
export interface DueAttempt {
  delivery_id: string;
  webhook_id: string;
  event: string;
  attempt: ServiceNumber;
  due_at: string;
}

/** The sandbox's clock (`/_sandbox/clock`); after a move, where it moved from and what the jump sent. */
export interface ClockState {
  clock?: 'manual' | 'wall';
  now: string;
  from?: string;
  sent?: ServiceNumber;
  delivered?: ServiceNumber;
  failed?: ServiceNumber;
  /** A jump under way (GET, while another call moves the clock): where from and to, its attempts sent, under way and still due inside it. */
  moving?: { from: string; to: string; sent: ServiceNumber; sending: ServiceNumber; due: ServiceNumber };
  due: DueAttempt[];
}

/** The answer of the sandbox's trigger (`/_sandbox/events`): the event, and the id of each delivery it made. */
export interface TriggeredEvent {
  id: string;
  type: string;
  deliveries: string[];
}

/** What an answer of the service must look like before a command reads it: one object, or a page of them. */
export type Shape = 'webhook' | 'attempt' | 'webhooks' | 'attempts' | 'catalog';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

type Test = (value: unknown) => boolean;
const isString: Test = (value) => typeof value === 'string';
const isStringList: Test = (value) => Array.isArray(value) && value.every(isString);
const isNumber: Test = (value) => typeof value === 'number' || (isRecord(value) && typeof value.rawJSON === 'string');
const optional =
  (test: Test): Test =>
  (value) =>
    value === undefined || test(value);
const orNull =
  (test: Test): Test =>
  (value) =>
    value === null || test(value);

/** The fields of an object that commands read, each with its test and the words for what it must be. */
type Fields = Record<string, [Test, string]>;

const WEBHOOK: Fields = {
  id: [isString, 'a string'],
  url: [isString, 'a string'],
  events: [isStringList, 'a list of strings'],
  active: [optional((value) => typeof value === 'boolean'), 'true or false'],
  created_at: [optional(isString), 'a string'],
};

const ATTEMPT: Fields = {
  id: [isString, 'a string'],
  delivery_id: [optional(isString), 'a string'],
  webhook_id: [optional(isString), 'a string'],
  event: [isString, 'a string'],
  status: [isString, 'a string'],
  response_code: [optional(orNull(isNumber)), 'a number'],
  attempts: [optional(isNumber), 'a number'],
  created_at: [isString, 'a string'],
};

const EVENT_TYPE: Fields = { type: [isString, 'a string'] };

/** Why `value` is not an object with `fields`, or undefined when it is. */
function objectProblem(value: unknown, fields: Fields): string | undefined {
  if (!isRecord(value)) return `it is ${value === null ? 'null' : Array.isArray(value) ? 'a list' : `a ${typeof value}`}, not an object`;
  for (const [name, [test, words]] of Object.entries(fields)) {
    if (!test(value[name])) return value[name] === undefined ? `it has no ${name}` : `its ${name} is not ${words}`;
  }
  return undefined;
}

/** Why `value` is not a list envelope of items with `fields`, or undefined when it is. */
function pageProblem(value: unknown, fields: Fields): string | undefined {
  if (!isRecord(value) || !Array.isArray(value.data)) return 'it has no data array';
  if (!optional(orNull(isString))(value.next_cursor)) return 'its next_cursor is not a string or null';
  if (!optional((more) => typeof more === 'boolean')(value.has_more)) return 'its has_more is not true or false';
  for (const [index, item] of value.data.entries()) {
    const problem = objectProblem(item, fields);
    if (problem) return `item ${index + 1}: ${problem}`;
  }
  return undefined;
}

const CHECKS: Record<Shape, { what: string; problem: (value: unknown) => string | undefined }> = {
  webhook: { what: 'a webhook (an object with an id, url and events)', problem: (v) => objectProblem(v, WEBHOOK) },
  attempt: { what: 'an attempt (an object with an id, event, status and created_at)', problem: (v) => objectProblem(v, ATTEMPT) },
  webhooks: { what: 'a page of webhooks (a data array of objects with an id, url and events)', problem: (v) => pageProblem(v, WEBHOOK) },
  attempts: { what: 'a page of attempts (a data array of objects with an id, event, status and created_at)', problem: (v) => pageProblem(v, ATTEMPT) },
  catalog: { what: 'the event catalog (a data array of objects with a type)', problem: (v) => pageProblem(v, EVENT_TYPE) },
};

/** Why `value` is not of `shape` (what it should be, and what is wrong), or undefined when it is. */
export function shapeProblem(value: unknown, shape: Shape): string | undefined {
  const check = CHECKS[shape];
  const problem = check.problem(value);
  return problem === undefined ? undefined : `${check.what}: ${problem}`;
}
