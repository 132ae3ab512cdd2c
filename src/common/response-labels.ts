import type { ServerResponse } from 'node:http';

/**
 * What the producer of a response knows about it, kept on the response for the observers, which
 * turn it into labels and log fields (the problem counter, the request log line), so that none of
 * them parses a body back from text.
 */
export interface ResponseLabels {
  /** The problem type's slug (an ErrorCode) of a problem answer. */
  problemType?: string;
  /** The referenceId of the transaction a money movement answered with. */
  transactionReferenceId?: string;
  /** The kind of money movement the route performs (its route metadata), once its answer is known. */
  movement?: string;
  /** A money movement answered from its stored outcome. */
  replayed?: boolean;
}

const LABELS = Symbol('responseLabels');
type Labelled = ServerResponse & { [LABELS]?: ResponseLabels };

/** Adds what this producer knows to what earlier producers of the same response recorded. */
export function labelResponse(response: ServerResponse, labels: ResponseLabels): void {
  const labelled = response as Labelled;
  labelled[LABELS] = { ...labelled[LABELS], ...labels };
}

const NONE: ResponseLabels = Object.freeze({});

export function responseLabelsOf(response: ServerResponse): ResponseLabels {
  return (response as Labelled)[LABELS] ?? NONE;
}
