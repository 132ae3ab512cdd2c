import type { ServerResponse } from 'node:http';

/**
 * What the producer of a reply knows about it, kept on the response for the observers (the
 * problem counter, the request log line), so that none of them parses a body back from text.
 */
export interface ReplyFacts {
  /** The problem type's slug (an ErrorCode) of a problem answer. */
  problemType?: string;
  /** The referenceId of the transaction a money movement answered with. */
  transactionReferenceId?: string;
  /** The kind of money movement the route performs (its route metadata), once its answer is known. */
  movement?: string;
  /** A money movement answered from its stored outcome. */
  replayed?: boolean;
}

const FACTS = Symbol('replyFacts');
type WithFacts = ServerResponse & { [FACTS]?: ReplyFacts };

/** Adds what this producer knows to what earlier producers of the same reply recorded. */
export function recordReplyFacts(response: ServerResponse, facts: ReplyFacts): void {
  const reply = response as WithFacts;
  reply[FACTS] = { ...reply[FACTS], ...facts };
}

const NONE: ReplyFacts = Object.freeze({});

export function replyFactsOf(response: ServerResponse): ReplyFacts {
  return (response as WithFacts)[FACTS] ?? NONE;
}
