import type { CallToolResult } from '@modelcontextprotocol/server';
import { SecretMask } from '../../api/redact.js';
import type { CommandDeps } from '../../cli/context.js';
import { errorReport, type Reporting } from '../../cli/error-report.js';
import type { JsonDocument, JsonOutput, Shown } from '../../cli/json-output.js';
import { exactParse } from '../../exact-json.js';
import type { OutputStream } from '../../render/stream.js';

// One tool call of `whsvc mcp`: the command's own run function (or the API client) run with an output of the call's
// own, whose --json document becomes the tool's structured result; what the run says on stderr (a warning) goes with
// it as a note; an error becomes a result marked isError with the line and hint a user of the command gets.

/** What a tool gives back: its --json document, and notes for the agent (how to get more, a warning). */
export interface ToolOutcome {
  value: unknown;
  notes?: string[] | undefined;
}

/** --json's output of one call, kept as values: the document a command prints (pages streamed by --all included). */
export class CapturedJson implements JsonOutput {
  value: unknown;

  document(value: unknown): Shown {
    this.value = value;
    return 'shown';
  }

  text(json: string): Shown {
    this.value = exactParse(json);
    return 'shown';
  }

  unfiltered(json: string): void {
    this.text(json);
  }

  line(value: unknown): void {
    this.value = [...(Array.isArray(this.value) ? this.value : []), value];
  }

  heading(): void {
    // A stream's heading (listen's address): no tool streams.
  }

  stream(key: string, head: Record<string, unknown> = {}): JsonDocument {
    const items: unknown[] = [];
    const captured = this;
    let started = false;
    return {
      get count() {
        return items.length;
      },
      get started() {
        return started;
      },
      item(value) {
        started = true;
        items.push(value);
      },
      end(tail) {
        started = true;
        captured.value = { ...head, [key]: items, ...tail };
      },
      cut() {
        // A list a failure stopped is no value: the call's error is its answer.
        items.length = 0;
      },
    };
  }
}

/** Text a run writes, kept: its human output (there should be none with --json) and its stderr's lines. */
class Collected implements OutputStream {
  text = '';
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

/** A call's dependencies: the server's, with --json on, its own output kept, no prompt, and what it said on stderr. */
export function callDeps(base: CommandDeps): { deps: CommandDeps; json: CapturedJson; said: () => string[] } {
  const json = new CapturedJson();
  const stderr = new Collected();
  const deps: CommandDeps = { ...base, stdout: new Collected(), stderr, jsonOut: json, json: true, canPrompt: false };
  const said = () =>
    stderr.text
      .split('\n')
      .map((line) => line.replace(/^whsvc: /, '').trim())
      .filter(Boolean);
  return { deps, json, said };
}

/**
 * What must never leave the server: the client secret and the access tokens (masked wherever they appear, in every
 * form an echo carries them in), and any field named signing_secret (left out: a created webhook's secret goes to its
 * file under --secret-dir, and no answer of the service should hold one again). A second guard: no tool puts them in.
 */
export class Secrets {
  private readonly mask = new SecretMask();

  constructor(
    clientSecret: string | undefined,
    private readonly tokens: () => string | undefined,
  ) {
    this.mask.add(clientSecret);
  }

  /** `text` with every secret in force masked. */
  masked(text: string): string {
    this.mask.add(this.tokens());
    return this.mask.mask(text);
  }

  /** A value as JSON text with no secret in it (signing_secret fields left out, the others masked). */
  jsonOf(value: unknown): string {
    const text = JSON.stringify(value, (key, field) => (key === 'signing_secret' ? undefined : field), 2) ?? 'null';
    return this.masked(text);
  }
}

/** A tool's result: the document as structured content, its JSON text for clients that read text only, and the notes. */
export function toolResult(outcome: ToolOutcome, secrets: Secrets): CallToolResult {
  const text = secrets.jsonOf(outcome.value);
  const parsed = exactParse(text);
  const notes = (outcome.notes ?? []).map((note) => ({ type: 'text' as const, text: secrets.masked(note) }));
  return {
    content: [{ type: 'text', text }, ...notes],
    // Structured content is an object: a document that is not one (none of the tools' is) goes as text alone.
    ...(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? { structuredContent: parsed as Record<string, unknown> } : {}),
  };
}

/**
 * An error as a result marked isError: the line and hint a user of the command reads (`whsvc: …`, `hint: …`), and
 * --json's error object with the hint and the exit code beside it. An error of no kind whsvc knows is an unexpected
 * one, said in one line, never with a stack.
 */
export function errorResult(error: unknown, reporting: Reporting, secrets: Secrets): CallToolResult {
  const told = errorReport(error, reporting) ?? {
    message: `unexpected error: ${(error as Error)?.message ?? String(error)}`,
    hint: undefined,
    exitCode: 1,
    status: undefined,
    code: undefined,
    jsonMessage: `unexpected error: ${(error as Error)?.message ?? String(error)}`,
  };
  const lines = `whsvc: ${told.message}${told.hint ? `\nhint: ${told.hint}` : ''}`;
  const structured = {
    error: { status: told.status ?? null, code: told.code ?? null, message: told.jsonMessage, hint: told.hint ?? null, exit_code: told.exitCode },
  };
  return {
    isError: true,
    content: [{ type: 'text', text: secrets.masked(lines) }],
    structuredContent: JSON.parse(secrets.masked(JSON.stringify(structured))) as Record<string, unknown>,
  };
}
