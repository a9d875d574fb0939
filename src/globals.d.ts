/** Replaced at build time with package.json's version. */
declare const WHSVC_VERSION: string;

/** JSON.parse's source text access and JSON.rawJSON (Node 21 and later; TypeScript's lib does not have them yet). */
interface JSON {
  rawJSON(text: string): { readonly rawJSON: string };
  isRawJSON(value: unknown): value is { readonly rawJSON: string };
  parse(text: string, reviver: (this: unknown, key: string, value: unknown, context: { source?: string }) => unknown): unknown;
}
