// Node 24 ships JSON.rawJSON and the JSON.parse reviver context (ES2025+); TypeScript's lib does not type them yet.
declare global {
  interface RawJson {
    readonly rawJSON: string;
  }
  interface JSON {
    rawJSON(text: string): RawJson;
    isRawJSON(value: unknown): value is RawJson;
    parse(
      text: string,
      reviver: (this: unknown, key: string, value: unknown, context: { source?: string }) => unknown,
    ): unknown;
  }
}
export {};
