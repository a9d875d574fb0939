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
  due: DueAttempt[];
}

/** The answer of the sandbox's trigger (`/_sandbox/events`): the event, and the id of each delivery it made. */
export interface TriggeredEvent {
  id: string;
  type: string;
  deliveries: string[];
}

/** What an answer of the service must look like before a command reads it. */
export type Shape = 'webhook' | 'attempt' | 'page' | 'catalog';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const CHECKS: Record<Shape, { what: string; ok: (value: Record<string, unknown>) => boolean }> = {
  webhook: { what: 'a webhook (an object with an id)', ok: (v) => typeof v.id === 'string' },
  attempt: { what: 'an attempt (an object with an id)', ok: (v) => typeof v.id === 'string' },
  page: { what: 'a page (an object with a data array)', ok: (v) => Array.isArray(v.data) },
  catalog: { what: 'the event catalog (an object with a data array)', ok: (v) => Array.isArray(v.data) },
};

/** Why `value` is not of `shape`, or undefined when it is. */
export function shapeProblem(value: unknown, shape: Shape): string | undefined {
  const check = CHECKS[shape];
  return isRecord(value) && check.ok(value) ? undefined : check.what;
}
