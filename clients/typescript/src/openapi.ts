// Generated from the OpenAPI document (/v3/api-docs) by `npm run client:generate`. Do not edit by hand.

export interface paths {
  '/api/v1/users': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List all users (admin) */
    get: operations['UsersController_list'];
    put?: never;
    /** Register a user with an opening balance */
    post: operations['UsersController_register'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/users/balance/{amount}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Users whose balance exceeds an amount (admin) */
    get: operations['UsersController_aboveBalance'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/users/upi/{upiId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The caller's own account, looked up by UPI ID */
    get: operations['UsersController_byUpiId'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/users/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The caller's own profile */
    get: operations['UsersController_byReferenceId'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/users/{id}/ledger': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The caller's ledger entries, newest first, by page or by cursor */
    get: operations['UsersController_ledger'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/login': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Exchange a registered UPI ID (and its PIN, when it has one) for a bearer token */
    post: operations['AuthController_login'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/logout': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Revoke the presented token, or with all=true every token of the caller */
    post: operations['AuthController_logout'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/users/{referenceId}/roles': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Grant or revoke ROLE_ADMIN on an existing account (admin)
     * @description Recorded in PostgreSQL with who and when. Every request checks the current grants, so a revoked admin's existing tokens lose the role within about a second on every instance.
     */
    post: operations['RolesController_setRole'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/transactions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Move money from the caller to another user, exactly once per Idempotency-Key */
    post: operations['TransactionsController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/transactions/user/{upiId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The caller's transactions, sent and received, newest first, by page or by cursor */
    get: operations['TransactionsController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/transactions/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One transaction, readable by its sender and receiver */
    get: operations['TransactionsController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/transactions/{referenceId}/reversals': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Refund a transfer, in full or in part, by its receiver, exactly once per Idempotency-Key
     * @description Moves money back from the original receiver to the original sender. Reversals of one transfer never add up to more than it (422 reversal-exceeds-remaining); only a TRANSFER can be reversed (422 not-reversible). The original then reads with status PARTIALLY_REVERSED or REVERSED and reversedAmount.
     */
    post: operations['ReversalsController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/payees/{upiId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The payee's name before paying: from the UPI verification provider, else as registered */
    get: operations['PayeesController_lookUp'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/deposits': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Fund a user from the treasury (admin), exactly once per Idempotency-Key
     * @description Money enters the system only from the treasury: the user gets a CREDIT, the treasury a DEBIT, under a DEPOSIT transaction. The sum of all balances, treasury included, stays 0.
     */
    post: operations['DepositsController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/audit': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Verify the whole ledger (admin): hash chains, balances, zero-sum transactions, no orphan rows, transactions against their hash, entries and reversals, global sum 0
     * @description The same check as `npm run audit`. Always 200: `ok` says whether everything holds, and each broken entry, account or transaction is named. Reads one consistent snapshot; writers are not blocked.
     */
    get: operations['AuditController_report'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/transactions/{id}/insights': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Spend category and a budgeting tip for a transaction (sender or receiver only) */
    post: operations['InsightsController_insight'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/users/{id}/statement': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The caller's statement for a period: opening and closing balance and every ledger entry between
     * @description JSON by default; send Accept: text/csv for CSV (RFC 4180, streamed). The CSV carries the balances and the period in the headers Statement-Opening-Balance, Statement-Closing-Balance, Statement-From and Statement-To. In the CSV only, a note starting with = + - @ is prefixed with ' so spreadsheets keep it as text.
     */
    get: operations['StatementsController_statement'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/users/{id}/balance-history': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The caller's balance at the end of each hour or day (UTC) of a period
     * @description One point per interval overlapping [from, to); the last point is at to itself.
     */
    get: operations['StatementsController_balanceHistory'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/webhooks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Every webhook endpoint, newest first (admin); secrets are never listed */
    get: operations['WebhooksController_list'];
    put?: never;
    /**
     * Subscribe an HTTPS endpoint to events (admin); the signing secret is shown once
     * @description The URL must use https and must not resolve to a loopback, private or link-local address (422 on `url`); both are checked again before every delivery. `events` lists event types, or `["*"]`. The service keeps at most WEBHOOK_ENDPOINTS_MAX endpoints (default 50): one more is 409 `conflict`.
     */
    post: operations['WebhooksController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/webhooks/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One webhook endpoint (admin), without its secret */
    get: operations['WebhooksController_get'];
    put?: never;
    post?: never;
    /** Delete a webhook endpoint and its deliveries (admin); nothing more is sent to it */
    delete: operations['WebhooksController_delete'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/webhooks/{id}/rotate-secret': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Replace the signing secret (admin); the new one is shown once
     * @description Every attempt from now on, retries of earlier events included, is signed with the new secret.
     */
    post: operations['WebhooksController_rotateSecret'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/webhooks/{id}/deliveries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** An endpoint's deliveries, newest first (admin) */
    get: operations['WebhooksController_deliveries'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/webhooks/{id}/deliveries/{deliveryId}/retry': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send a finished delivery again (admin): due now, with a new round of the retry schedule
     * @description Also enables the endpoint again if it was DISABLED. A PENDING delivery is already queued: 409.
     */
    post: operations['WebhooksController_retry'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/payment-requests': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Ask to be paid: the caller is the payee; share the upiUri or its QR code with the payer */
    post: operations['PaymentRequestsController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/payment-requests/{referenceId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One payment request; any authenticated user with its id may read it (it is shared) */
    get: operations['PaymentRequestsController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/payment-requests/{referenceId}/qr': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A QR code of the request's upiUri: SVG, or PNG with format=png
     * @description The image never changes: keep it, and send its ETag back in If-None-Match to hear 304 instead of the bytes.
     */
    get: operations['PaymentRequestsController_qr'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/payment-requests/{referenceId}/payments': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Pay a request: a transfer from the caller to the payee, exactly once per Idempotency-Key
     * @description Every transfer rule applies; the request turns PAID in the same database transaction.
     */
    post: operations['PaymentRequestsController_pay'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/payment-requests/{referenceId}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Cancel an OPEN request (the payee only) */
    post: operations['PaymentRequestsController_cancel'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/users/{referenceId}/payment-requests': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The caller's requests as payee, newest first, by page or by cursor */
    get: operations['PaymentRequestsController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/holds': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Reserve money for a payee: the amount leaves the caller (the payer) at once, exactly once per key
     * @description Every transfer rule applies (balance, limits: it counts as a transfer of its amount, frozen accounts, the rate limit). The payee captures it in one or more parts or releases it; at expiresAt what is left returns to the payer by itself.
     */
    post: operations['HoldsController_place'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/holds/{referenceId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One hold, for its payer or its payee */
    get: operations['HoldsController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/holds/{referenceId}/captures': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Take money from a hold (the payee only): a TRANSFER from the payer, exactly once per key
     * @description Several captures may follow one another, never more than the amount in all (422 hold-exceeded); concurrent captures are serialised on the hold. Fully captured, the hold is CAPTURED.
     */
    post: operations['HoldsController_capture'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/holds/{referenceId}/release': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Give back what is left of a hold to its payer (the payee only): RELEASED */
    post: operations['HoldsController_release'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/users/{referenceId}/holds': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The caller's holds as payer (default) or payee, newest first, by page or by cursor */
    get: operations['HoldsController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/users/{referenceId}/limits': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** An account's limits, what is used today and when it resets (owner or admin) */
    get: operations['LimitsController_view'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/users/{referenceId}/limits': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Override an account's daily limits (admin); null goes back to the profile */
    put: operations['LimitsController_override'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/users/{referenceId}/freeze': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Freeze an account (admin): it neither sends nor receives; reads and login go on */
    post: operations['LimitsController_freeze'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/users/{referenceId}/unfreeze': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Unfreeze an account (admin) */
    post: operations['LimitsController_unfreeze'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/users/{referenceId}/actions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The admin actions log of an account, newest first (admin): append-only */
    get: operations['LimitsController_actions'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/scheduled-transfers': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Schedule a transfer from the caller: once, daily, weekly or monthly
     * @description Each occurrence runs once, as an ordinary transfer with every transfer rule but the per-second rate limit (that one guards the API's own calls), under an Idempotency-Key of the service's own namespace that no client key can take. Repeats keep the local time of startAt in BUSINESS_TIME_ZONE; a monthly run on a day the month lacks runs on its last day. A sender may have at most SCHEDULED_TRANSFERS_MAX_PER_USER (default 100) active or paused instructions; one more is refused with 422 limit-exceeded, its `limit` member `{"name": "scheduled-transfers", "max", "used", "remaining": 0, "resetsAt": null}` (a slot frees when an instruction is cancelled or completes), and nothing is written.
     */
    post: operations['ScheduledTransfersController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/scheduled-transfers/{referenceId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One scheduled transfer (its sender or receiver) */
    get: operations['ScheduledTransfersController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/scheduled-transfers/{referenceId}/runs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A scheduled transfer's runs, newest first (its sender or receiver)
     * @description COMPLETED names its transaction; FAILED carries the problem the transfer answered (to the sender; the receiver reads only payment-not-completed, "The payment could not be completed", never the sender's balance, freeze or limits), and is not retried; MISSED: the service was down for 24 hours or more past the due time, and nothing moved.
     */
    get: operations['ScheduledTransfersController_runs'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/scheduled-transfers/{referenceId}/pause': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Pause (the sender): occurrences due while paused are skipped */
    post: operations['ScheduledTransfersController_pause'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/scheduled-transfers/{referenceId}/resume': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Resume (the sender): the next run is the next occurrence after now */
    post: operations['ScheduledTransfersController_resume'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/scheduled-transfers/{referenceId}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Cancel (the sender): nothing more runs */
    post: operations['ScheduledTransfersController_cancel'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/users/{referenceId}/scheduled-transfers': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The owner's scheduled transfers as sender, newest first */
    get: operations['UserScheduledTransfersController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/transactions/{referenceId}/disputes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Raise a dispute on a transfer (its payer only), exactly once per Idempotency-Key
     * @description Within DISPUTE_WINDOW_DAYS of the transfer, for at most what is not yet reversed. The payee answers by respondBy, or the dispute escalates to an admin. NPCI caps: 10 disputes per payer in a rolling 30 days, 5 per payer and payee.
     */
    post: operations['DisputesController_open'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/disputes/{referenceId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One dispute, with its history: the payer, the payee or an admin */
    get: operations['DisputesController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/disputes/{referenceId}/accept': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Accept a dispute (the payee, before respondBy): the refund goes back to the payer, once
     * @description A REVERSAL of the transfer for the dispute's amount, capped at what is not yet reversed; the dispute is RESOLVED/REFUNDED with refundTransactionReferenceId. Accepting again answers the same dispute.
     */
    post: operations['DisputesController_accept'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/disputes/{referenceId}/reject': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Reject a dispute (the payee, before respondBy): it escalates to an admin */
    post: operations['DisputesController_reject'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/disputes/{referenceId}/withdraw': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Withdraw a dispute (the payer) while it is not RESOLVED */
    post: operations['DisputesController_withdraw'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/users/{referenceId}/disputes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The caller's disputes, raised (as payer) or received (as payee), newest first */
    get: operations['DisputesController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/disputes/{referenceId}/resolve': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Settle an ESCALATED dispute (admin): REFUND through the reversal path, or REJECT
     * @description A refund the payee's balance cannot cover is 422 insufficient-balance and the dispute stays ESCALATED. The refund defaults to the dispute amount, capped at what of the transfer is not yet reversed.
     */
    post: operations['DisputesAdminController_resolve'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/disputes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Every dispute (admin), newest first; overdue=true: ESCALATED and past resolveBy */
    get: operations['DisputesAdminController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/actuator': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Links to every actuator endpoint (Spring Boot Actuator shape) */
    get: operations['ActuatorIndexController_index'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/actuator/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Overall health; component details for ROLE_ADMIN tokens only */
    get: operations['HealthController_overall'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/actuator/health/liveness': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Liveness probe: the process can serve; DOWN only when its embedded database cannot be restarted */
    get: operations['HealthController_liveness'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/actuator/health/readiness': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Readiness probe: the database answers and no essential circuit is open; details for ROLE_ADMIN only */
    get: operations['HealthController_readiness'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/actuator/info': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Name, version, git commit, build time and Node version */
    get: operations['InfoController_getInfo'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/actuator/metrics': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The names of every metric /actuator/prometheus exposes */
    get: operations['MetricsController_names'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/actuator/metrics/{name}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One metric: its measurements summed over the series matching every ?tag=key:value */
    get: operations['MetricsController_metric'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    ProblemDetail: {
      /**
       * Format: uri
       * @description The error base URL (ERRORS_BASE_URL) followed by the problem slug
       * @example https://errors.payments.local/validation-failed
       * @enum {string}
       */
      type:
        | 'https://errors.payments.local/invalid-request'
        | 'https://errors.payments.local/validation-failed'
        | 'https://errors.payments.local/unauthorized'
        | 'https://errors.payments.local/forbidden-operation'
        | 'https://errors.payments.local/not-found'
        | 'https://errors.payments.local/user-not-found'
        | 'https://errors.payments.local/transaction-not-found'
        | 'https://errors.payments.local/webhook-not-found'
        | 'https://errors.payments.local/webhook-delivery-not-found'
        | 'https://errors.payments.local/payment-request-not-found'
        | 'https://errors.payments.local/payment-request-not-open'
        | 'https://errors.payments.local/hold-not-found'
        | 'https://errors.payments.local/hold-not-open'
        | 'https://errors.payments.local/hold-exceeded'
        | 'https://errors.payments.local/payment-request-limit-reached'
        | 'https://errors.payments.local/duplicate-upi-id'
        | 'https://errors.payments.local/invalid-upi-id'
        | 'https://errors.payments.local/self-transfer'
        | 'https://errors.payments.local/insufficient-balance'
        | 'https://errors.payments.local/reversal-exceeds-remaining'
        | 'https://errors.payments.local/dispute-not-found'
        | 'https://errors.payments.local/dispute-window-closed'
        | 'https://errors.payments.local/dispute-already-open'
        | 'https://errors.payments.local/dispute-limit-exceeded'
        | 'https://errors.payments.local/dispute-status-conflict'
        | 'https://errors.payments.local/not-reversible'
        | 'https://errors.payments.local/limit-exceeded'
        | 'https://errors.payments.local/history-archived'
        | 'https://errors.payments.local/account-frozen'
        | 'https://errors.payments.local/idempotency-key-missing'
        | 'https://errors.payments.local/idempotency-key-invalid'
        | 'https://errors.payments.local/idempotency-key-reused'
        | 'https://errors.payments.local/idempotency-key-in-flight'
        | 'https://errors.payments.local/conflict'
        | 'https://errors.payments.local/method-not-allowed'
        | 'https://errors.payments.local/unsupported-media-type'
        | 'https://errors.payments.local/payload-too-large'
        | 'https://errors.payments.local/uri-too-long'
        | 'https://errors.payments.local/header-fields-too-large'
        | 'https://errors.payments.local/rate-limit-exceeded'
        | 'https://errors.payments.local/login-locked'
        | 'https://errors.payments.local/service-unavailable'
        | 'https://errors.payments.local/feature-disabled'
        | 'https://errors.payments.local/internal-error';
      /** @example Validation Failed */
      title: string;
      /** @example 422 */
      status: number;
      /** @example Request validation failed */
      detail: string;
      /** @example /api/v1/transactions */
      instance: string;
      /**
       * Format: date-time
       * @example 2026-11-22T10:15:30.123Z
       */
      timestamp: string;
      /**
       * Format: uuid
       * @example 3f2b8c1e-5d4a-4e9b-9c1f-7a6e2d8b0c4d
       */
      requestId: string;
      /**
       * @description Validation failures only: field name to message
       * @example {
       *       "amount": "amount must be at least 0.01"
       *     }
       */
      errors?: {
        [key: string]: string;
      };
      /** @description limit-exceeded only: the limit, its maximum, what is used and remains (amounts, or a count), and when it resets */
      limit?: {
        /** @enum {string} */
        name?: 'daily-amount' | 'daily-count' | 'new-user-amount';
        max?: number;
        used?: number;
        remaining?: number;
        /** Format: date-time */
        resetsAt?: string;
      };
      /**
       * @description history-archived only: the first month (UTC) whose history is live, YYYY-MM
       * @example 2018-01
       */
      firstLiveMonth?: string;
    };
    RegisterUserRequest: {
      /** @example Alice Sharma */
      name: string;
      /** @example alice@okbank */
      upiId: string;
      /** @example 9876543210 */
      phoneNumber: string;
      /**
       * @description INR, up to 4 decimals (HALF_EVEN)
       * @example 1500.5025
       */
      balance: number;
      /**
       * @description Login PIN (4 or 6 digits), stored only as a salted scrypt hash. Required when AUTH_PIN_REQUIRED=true.
       * @example 482916
       */
      pin?: string;
    };
    UserResponse: {
      /** Format: uuid */
      referenceId: string;
      /** @example Alice Sharma */
      name: string;
      /** @example alice@okbank */
      upiId: string;
      /** @example 9876543210 */
      phoneNumber: string;
      /** @example 1500.5025 */
      balance: number;
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
    };
    UserAccountResponse: {
      /** @example 42 */
      userId: number;
      /** @example Alice Sharma */
      name: string;
      /** @example alice@okbank */
      upiId: string;
      /** @example 9876543210 */
      phoneNumber: string;
      /** @example 1500.5025 */
      balance: number;
      /** @example 3 */
      version: number;
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
    };
    LedgerEntryResponse: {
      /** @example 7 */
      ledgerId: number;
      /** Format: uuid */
      userReferenceId: string;
      /** Format: uuid */
      transactionReferenceId: string;
      /** @enum {string} */
      entryType: 'DEBIT' | 'CREDIT';
      /** @example 100.5025 */
      amount: number;
      /** @example 150.7576 */
      balanceBefore: number;
      /** @example 50.2551 */
      balanceAfter: number;
      /** Format: date-time */
      createdAt: string;
    };
    LoginRequest: {
      /** @example alice@okbank */
      upiId: string;
      /**
       * @description The user's PIN: required for users who set one, and for everyone when AUTH_PIN_REQUIRED=true
       * @example 482916
       */
      pin?: string;
    };
    LoginResponse: {
      /**
       * @description A JWT: send it as Authorization: Bearer <accessToken>
       * @example eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZUBva2JhbmsifQ.c2lnbmF0dXJl
       */
      accessToken: string;
      /**
       * @example Bearer
       * @enum {string}
       */
      tokenType: 'Bearer';
      /** @example 3600 */
      expiresIn: number;
      /** @example alice@okbank */
      upiId: string;
      /** Format: uuid */
      referenceId: string;
    };
    RoleGrantRequest: {
      /**
       * @example ROLE_ADMIN
       * @enum {string}
       */
      role: 'ROLE_ADMIN';
      /**
       * @description true grants the role, false revokes it
       * @example true
       */
      granted: boolean;
    };
    RoleGrantResponse: {
      /** Format: uuid */
      referenceId: string;
      /** @example alice@okbank */
      upiId: string;
      /**
       * @example [
       *       "ROLE_USER",
       *       "ROLE_ADMIN"
       *     ]
       */
      roles: string[];
      /** @enum {string} */
      outcome: 'granted' | 'revoked' | 'unchanged';
    };
    TransferRequest: {
      /** @example alice@okbank */
      senderUpiId: string;
      /** @example bob@okbank */
      receiverUpiId: string;
      /**
       * @description INR, up to 4 decimals (HALF_EVEN)
       * @example 100.5025
       */
      amount: number;
      /** @example dinner */
      note?: string;
    };
    TransactionResponse: {
      /** @example 42 */
      transactionId: number;
      /** Format: uuid */
      referenceId: string;
      /** @example alice@okbank */
      senderUpiId: string;
      /** @example bob@okbank */
      receiverUpiId: string;
      /** @example 100.5025 */
      amount: number;
      /**
       * @example COMPLETED
       * @enum {string}
       */
      status: 'COMPLETED' | 'PARTIALLY_REVERSED' | 'REVERSED';
      /**
       * @example TRANSFER
       * @enum {string}
       */
      type: 'TRANSFER' | 'DEPOSIT' | 'REVERSAL';
      /** @example dinner */
      note: string | null;
      /** Format: date-time */
      createdAt: string;
      /**
       * Format: uuid
       * @description REVERSAL only: the referenceId of the transfer it reverses
       */
      originalReferenceId?: string;
      /**
       * @description TRANSFER only, once reversed in part or in full: the amount returned so far
       * @example 40.2525
       */
      reversedAmount?: number;
      /**
       * Format: uuid
       * @description A TRANSFER that paid a payment request, in the answer to that payment: the request
       */
      paymentRequestReferenceId?: string;
      /**
       * Format: uuid
       * @description A TRANSFER that captured a hold: the hold
       */
      holdReferenceId?: string;
    };
    ReversalRequest: {
      /**
       * @description INR, up to 4 decimals (HALF_EVEN); defaults to what remains reversible
       * @example 40.2525
       */
      amount?: number;
      /** @example refund: item returned */
      note?: string;
    };
    PayeeResponse: {
      /**
       * @description The UPI ID as registered
       * @example bob@okbank
       */
      upiId: string;
      /**
       * @description The account holder's name from the UPI verification provider, else the registered name
       * @example Bob Kumar
       */
      name: string;
    };
    DepositRequest: {
      /**
       * @description The user to credit
       * @example alice@okbank
       */
      upiId: string;
      /**
       * @description INR, up to 4 decimals (HALF_EVEN)
       * @example 5000.2525
       */
      amount: number;
      /** @example bank transfer 2026-11-22 */
      note?: string;
    };
    SpendInsightResponse: {
      /** Format: uuid */
      transactionReferenceId: string;
      /**
       * @example FOOD_AND_DINING
       * @enum {string}
       */
      category:
        | 'FOOD_AND_DINING'
        | 'SHOPPING'
        | 'TRANSPORTATION'
        | 'UTILITIES'
        | 'ENTERTAINMENT'
        | 'HEALTHCARE'
        | 'INVESTMENTS'
        | 'TRANSFER';
      /** @example 450 */
      amount: number;
      /** @example ₹450.00 to zomato@okaxis looks like food and dining. */
      summary: string;
      /** @example Set a weekly food budget. */
      budgetingTip: string;
      /**
       * Format: double
       * @example 0.9
       */
      confidenceScore: number;
      /** @enum {string} */
      source: 'AI_MODEL' | 'RULE_BASED_FALLBACK';
    };
    StatementEntryResponse: {
      /**
       * Format: date-time
       * @example 2026-11-20T09:15:02.123Z
       */
      createdAt: string;
      /**
       * Format: uuid
       * @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b
       */
      transactionReferenceId: string;
      /**
       * @description TRANSFER, or DEPOSIT for money entering the system (an opening balance at registration)
       * @example TRANSFER
       */
      type: string;
      /**
       * @example DEBIT
       * @enum {string}
       */
      entryType: 'DEBIT' | 'CREDIT';
      /**
       * @description The other party: the receiver of a DEBIT, the sender of a CREDIT; null for an opening balance
       * @example bob@okbank
       */
      counterpartyUpiId: string | null;
      /** @example 120.5025 */
      amount: number;
      /** @example 379.5 */
      balanceAfter: number;
      /** @example dinner */
      note: string | null;
    };
    StatementResponse: {
      /**
       * Format: date-time
       * @description Inclusive
       * @example 2026-11-01T00:00:00.000Z
       */
      from: string;
      /**
       * Format: date-time
       * @description Exclusive
       * @example 2026-12-01T00:00:00.000Z
       */
      to: string;
      /**
       * @description The balance at from
       * @example 500
       */
      openingBalance: number;
      /**
       * @description The balance at to: opening + credits - debits
       * @example 379.5
       */
      closingBalance: number;
      /** @description Oldest first */
      entries: components['schemas']['StatementEntryResponse'][];
    };
    BalancePointResponse: {
      /**
       * Format: date-time
       * @description End of the interval
       * @example 2026-11-21T00:00:00.000Z
       */
      at: string;
      /** @example 379.5 */
      balance: number;
    };
    CreateWebhookRequest: {
      /** @example https://hooks.example.com/payments */
      url: string;
      /**
       * @example [
       *       "TransferCompleted"
       *     ]
       */
      events: (
        | '*'
        | 'TransferCompleted'
        | 'TransferReversed'
        | 'HoldPlaced'
        | 'HoldCaptured'
        | 'HoldReleased'
        | 'HoldExpired'
        | 'DisputeOpened'
        | 'DisputeEscalated'
        | 'DisputeResolved'
      )[];
      /** @example Accounting sync */
      description?: string;
    };
    WebhookWithSecretResponse: {
      /** Format: uuid */
      id: string;
      /** @example https://hooks.example.com/payments */
      url: string;
      /**
       * @example [
       *       "TransferCompleted"
       *     ]
       */
      events: string[];
      /** @example Accounting sync */
      description: string | null;
      /**
       * @description DISABLED after a whole retry schedule failed with nothing delivered; an admin retry enables it
       * @enum {string}
       */
      status: 'ENABLED' | 'DISABLED';
      /** Format: date-time */
      createdAt: string;
      /**
       * @description The signing secret; shown only here and on rotate-secret, never again
       * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
       */
      secret: string;
    };
    WebhookResponse: {
      /** Format: uuid */
      id: string;
      /** @example https://hooks.example.com/payments */
      url: string;
      /**
       * @example [
       *       "TransferCompleted"
       *     ]
       */
      events: string[];
      /** @example Accounting sync */
      description: string | null;
      /**
       * @description DISABLED after a whole retry schedule failed with nothing delivered; an admin retry enables it
       * @enum {string}
       */
      status: 'ENABLED' | 'DISABLED';
      /** Format: date-time */
      createdAt: string;
    };
    WebhookDeliveryResponse: {
      /** Format: uuid */
      id: string;
      /**
       * Format: uuid
       * @description The event, also sent as the webhook-id header
       */
      eventId: string;
      /** @example TransferCompleted */
      eventType: string;
      /** @enum {string} */
      status: 'PENDING' | 'DELIVERED' | 'FAILED';
      /** @example 1 */
      attempts: number;
      /** Format: date-time */
      lastAttemptAt: string | null;
      /** @example 200 */
      lastStatusCode: number | null;
      /**
       * @description Why the last attempt failed (status, timeout, network error, refused address); never the body
       * @example HTTP 500
       */
      lastError: string | null;
      /**
       * Format: date-time
       * @description When PENDING; null otherwise
       */
      nextAttemptAt: string | null;
      /** Format: date-time */
      createdAt: string;
    };
    CreatePaymentRequest: {
      /**
       * @description INR, at most 2 decimals; leave it out for an open amount that the payer chooses
       * @example 250.5
       */
      amount?: number;
      /** @example Dinner at Toit */
      note?: string;
      /**
       * @description Seconds until the request expires; 900 when left out
       * @example 900
       */
      expiresInSeconds?: number;
    };
    PaymentRequestResponse: {
      /** Format: uuid */
      referenceId: string;
      /** @example bob@okbank */
      payeeUpiId: string;
      /** @example Bob Kumar */
      payeeName: string;
      /**
       * @description null: an open amount
       * @example 250.5
       */
      amount: number | null;
      /** @example Dinner at Toit */
      note: string | null;
      /**
       * @example OPEN
       * @enum {string}
       */
      status: 'OPEN' | 'PAID' | 'CANCELLED' | 'EXPIRED';
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      expiresAt: string;
      /** Format: date-time */
      paidAt: string | null;
      /** Format: uuid */
      transactionReferenceId: string | null;
      /**
       * @description NPCI linking format, each value percent-encoded (RFC 3986); am left out for an open amount, tn without a note
       * @example upi://pay?pa=bob@okbank&pn=Bob%20Kumar&am=250.50&cu=INR&tn=Dinner%20at%20Toit&tr=0f8fad5b-d9cb-469f-a165-70867728950e
       */
      upiUri: string;
    };
    PayPaymentRequest: {
      /**
       * @description Required when the request's amount is open; otherwise absent or equal to it (422 on amount)
       * @example 250.5
       */
      amount?: number;
      /**
       * @description Defaults to the request's note
       * @example Dinner at Toit
       */
      note?: string;
    };
    PlaceHoldRequest: {
      /** @example bob@okbank */
      payeeUpiId: string;
      /**
       * @description INR, up to 4 decimals (HALF_EVEN); leaves the payer balance at once
       * @example 500
       */
      amount: number;
      /**
       * @description Seconds until the rest returns to the payer by itself; 86400 when left out, at most HOLD_MAX_SECONDS
       * @example 3600
       */
      expiresInSeconds?: number;
      /** @example hotel deposit */
      note?: string;
    };
    HoldCaptureResponse: {
      /**
       * Format: uuid
       * @description The TRANSFER this capture made
       */
      transactionReferenceId: string;
      /** @example 120 */
      amount: number;
      /** Format: date-time */
      at: string;
    };
    HoldResponse: {
      /** Format: uuid */
      referenceId: string;
      /** @example alice@okbank */
      payerUpiId: string;
      /** @example bob@okbank */
      payeeUpiId: string;
      /** @example 500 */
      amount: number;
      /** @example 120 */
      capturedAmount: number;
      /** @example 380 */
      remainingAmount: number;
      /**
       * @example HELD
       * @enum {string}
       */
      status: 'HELD' | 'CAPTURED' | 'RELEASED' | 'EXPIRED';
      /** @example hotel deposit */
      note: string | null;
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      expiresAt: string;
      /**
       * Format: date-time
       * @description When it left HELD
       */
      closedAt: string | null;
      /** @description Oldest first */
      captures: components['schemas']['HoldCaptureResponse'][];
    };
    CaptureHoldRequest: {
      /**
       * @description INR, up to 4 decimals (HALF_EVEN); defaults to what remains on the hold
       * @example 120
       */
      amount?: number;
      /**
       * @description Defaults to the hold's note
       * @example room and minibar
       */
      note?: string;
    };
    DailyLimitsView: {
      /** @example 100000 */
      amountMax: number | null;
      /** @example 65000.2525 */
      amountUsed: number;
      /** @example 20 */
      countMax: number | null;
      /** @example 3 */
      countUsed: number;
      /**
       * Format: date-time
       * @example 2026-11-24T18:30:00.000Z
       */
      resetsAt: string;
    };
    NewUserLimitsView: {
      /**
       * Format: date-time
       * @example 2026-11-25T09:00:00.000Z
       */
      until: string;
      /** @example 5000 */
      amountMax: number;
      /** @example 1200.2525 */
      amountUsed: number;
    };
    LimitsView: {
      /** @example 100000 */
      perTransferMax: number;
      daily: components['schemas']['DailyLimitsView'];
      /**
       * @description The cooling period after registration; null once it is over or when the profile has none
       * @example {
       *       "until": "2026-11-25T09:00:00.000Z",
       *       "amountMax": 5000,
       *       "amountUsed": 1200
       *     }
       */
      newUser: components['schemas']['NewUserLimitsView'] | null;
      /** @example false */
      frozen: boolean;
    };
    LimitOverridesRequest: {
      /**
       * @description null: back to the profile
       * @example 50000
       */
      dailyAmountMax?: number | null;
      /**
       * @description null: back to the profile
       * @example 10
       */
      dailyCountMax?: number | null;
    };
    FreezeRequest: {
      /** @example Court order 2026/117 */
      reason: string;
    };
    AdminActionResponse: {
      /**
       * @example FREEZE
       * @enum {string}
       */
      action: 'FREEZE' | 'UNFREEZE' | 'LIMITS' | 'GRANT_ROLE' | 'REVOKE_ROLE';
      /** @example Court order 2026/117 */
      reason: string | null;
      /** @example admin@okbank */
      adminUpiId: string;
      /**
       * Format: date-time
       * @example 2026-11-24T09:00:00.000Z
       */
      at: string;
      /** @example {} */
      details: {
        [key: string]: unknown;
      };
    };
    CreateScheduledTransferRequest: {
      /** @example landlord@okbank */
      receiverUpiId: string;
      /**
       * @description INR per run, up to 4 decimals (HALF_EVEN), as for a transfer
       * @example 15000.2525
       */
      amount: number;
      /** @example rent */
      note?: string;
      /**
       * @example MONTHLY
       * @enum {string}
       */
      frequency: 'ONCE' | 'DAILY' | 'WEEKLY' | 'MONTHLY';
      /**
       * @description ISO-8601 date-time, not in the past; without an offset it is a local time in BUSINESS_TIME_ZONE. Repeats keep its local time there; a monthly run on a day the month lacks runs on its last day.
       * @example 2026-12-01T09:00:00+05:30
       */
      startAt: string;
      /**
       * @description No run after this; after startAt
       * @example 2027-11-30T23:59:59+05:30
       */
      endAt?: string;
      /** @example 12 */
      maxOccurrences?: number;
    };
    ScheduledTransferResponse: {
      /** Format: uuid */
      referenceId: string;
      /** @example alice@okbank */
      senderUpiId: string;
      /** @example landlord@okbank */
      receiverUpiId: string;
      /** @example 15000.2525 */
      amount: number;
      /** @example rent */
      note: string | null;
      /**
       * @example MONTHLY
       * @enum {string}
       */
      frequency: 'ONCE' | 'DAILY' | 'WEEKLY' | 'MONTHLY';
      /** Format: date-time */
      startAt: string;
      /** Format: date-time */
      endAt: string | null;
      /** @example 12 */
      maxOccurrences: number | null;
      /** @enum {string} */
      status: 'ACTIVE' | 'PAUSED' | 'CANCELLED' | 'COMPLETED';
      /**
       * Format: date-time
       * @description Null once nothing more runs
       */
      nextRunAt: string | null;
      /**
       * @description Occurrences that came due and were recorded as runs
       * @example 0
       */
      occurrences: number;
      /** Format: date-time */
      createdAt: string;
    };
    RunProblem: {
      /** @example https://errors.payments.local/insufficient-balance */
      type: string;
      /** @example Available balance 10.0000 is less than the required amount 15000.2525 */
      detail: string;
    };
    ScheduledTransferRunResponse: {
      /** Format: date-time */
      dueAt: string;
      /** Format: date-time */
      ranAt: string;
      /** @enum {string} */
      status: 'COMPLETED' | 'FAILED' | 'MISSED';
      /** Format: uuid */
      transactionReferenceId: string | null;
      /**
       * @description FAILED only: what the transfer answered, as the sender reads it. The receiver reads {"type": "<errors base>/payment-not-completed", "detail": "The payment could not be completed"} instead
       * @example {
       *       "type": "https://errors.payments.local/insufficient-balance",
       *       "detail": "Available balance 10.0000 is less than the required amount 15000.2525"
       *     }
       */
      problem: components['schemas']['RunProblem'] | null;
    };
    OpenDisputeRequest: {
      /**
       * @example WRONG_AMOUNT
       * @enum {string}
       */
      reason: 'WRONG_RECIPIENT' | 'WRONG_AMOUNT' | 'NOT_RECEIVED' | 'DUPLICATE' | 'FRAUD' | 'OTHER';
      /**
       * @description INR, up to 4 decimals (HALF_EVEN); defaults to what of the transfer is not yet reversed
       * @example 40.25
       */
      amount?: number;
      /** @example Charged twice for one order */
      description?: string;
    };
    DisputeHistoryLine: {
      /** Format: date-time */
      at: string;
      /**
       * @example OPEN
       * @enum {string}
       */
      status: 'OPEN' | 'ESCALATED' | 'RESOLVED';
      /**
       * @description Who made the change; null when the clock escalated it
       * @example alice@okbank
       */
      byUpiId: string | null;
      /** @example Charged twice for one order */
      note: string | null;
    };
    DisputeResponse: {
      /** Format: uuid */
      referenceId: string;
      /**
       * Format: uuid
       * @description The disputed transfer
       */
      transactionReferenceId: string;
      /**
       * @description The payer, who raised it
       * @example alice@okbank
       */
      raisedByUpiId: string;
      /**
       * @description The payee, who answers it
       * @example bob@okbank
       */
      counterpartyUpiId: string;
      /**
       * @example WRONG_AMOUNT
       * @enum {string}
       */
      reason: 'WRONG_RECIPIENT' | 'WRONG_AMOUNT' | 'NOT_RECEIVED' | 'DUPLICATE' | 'FRAUD' | 'OTHER';
      /** @example 40.25 */
      amount: number;
      /** @example Charged twice for one order */
      description: string | null;
      /**
       * @example OPEN
       * @enum {string}
       */
      status: 'OPEN' | 'ESCALATED' | 'RESOLVED';
      /**
       * @example null
       * @enum {string|null}
       */
      resolution: 'REFUNDED' | 'REJECTED' | 'WITHDRAWN' | null;
      /**
       * Format: date-time
       * @description The payee answers by then, or the dispute escalates
       */
      respondBy: string;
      /**
       * Format: date-time
       * @description The turnaround deadline of the escalated dispute
       */
      resolveBy: string;
      /** @description ESCALATED and past resolveBy */
      overdue: boolean;
      /**
       * Format: uuid
       * @description The REVERSAL that refunded it
       */
      refundTransactionReferenceId: string | null;
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
      history: components['schemas']['DisputeHistoryLine'][];
    };
    RejectDisputeRequest: {
      /** @example The order was delivered on 2026-11-20 */
      note: string;
    };
    ResolveDisputeRequest: {
      /**
       * @example REFUND
       * @enum {string}
       */
      decision: 'REFUND' | 'REJECT';
      /**
       * @description REFUND only: defaults to the dispute's amount, capped at what is not yet reversed
       * @example 40.25
       */
      amount?: number;
      /** @example Merchant confirmed the duplicate charge */
      note: string;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  UsersController_list: {
    parameters: {
      query?: {
        sortBy?: 'userId' | 'name' | 'upiId' | 'balance' | 'createdAt';
        size?: number;
        page?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page, 0-based */
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            content: components['schemas']['UserResponse'][];
            /** @example 0 */
            page: number;
            /** @example 10 */
            size: number;
            /** @example 1 */
            totalElements: number;
            /** @example 1 */
            totalPages: number;
            /** @example true */
            first: boolean;
            /** @example true */
            last: boolean;
          };
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  UsersController_register: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "name": "Alice Sharma",
         *       "upiId": "alice@okbank",
         *       "phoneNumber": "9876543210",
         *       "balance": 1500.5025
         *     }
         */
        'application/json': components['schemas']['RegisterUserRequest'];
      };
    };
    responses: {
      /** @description Registered; Location names the new user */
      201: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Where the created resource can be read */
          Location: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['UserResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description UPI ID Already Registered */
      409: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The request body is larger than 64 KiB */
      413: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unsupported Media Type */
      415: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed; Invalid UPI ID */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Rate Limit Exceeded. Retry after the number of seconds in Retry-After */
      429: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  UsersController_aboveBalance: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description INR threshold
         * @example 1000.00
         */
        amount: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['UserResponse'][];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  UsersController_byUpiId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example alice@okbank */
        upiId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['UserAccountResponse'];
        };
      };
      /** @description The URL is not validly percent-encoded, or a parameter or body is malformed */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description User Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  UsersController_byReferenceId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['UserResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description User Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  UsersController_ledger: {
    parameters: {
      query?: {
        /** @description Offset paging, 0-based */
        page?: number;
        /** @description 1 to 100 */
        size?: number;
        /** @description Cursor paging: the nextCursor of the previous page (from an offset page or a cursor page). Not combinable with page (400). Entries added meanwhile neither shift nor repeat the next page. */
        cursor?: string;
      };
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page. With page (or neither parameter): the full offset envelope plus nextCursor. With cursor: content, size, first, last and nextCursor only (no counts, so a page costs the same at any depth). */
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            content: components['schemas']['LedgerEntryResponse'][];
            /**
             * @description Offset pages only
             * @example 0
             */
            page?: number;
            /** @example 10 */
            size: number;
            /**
             * @description Offset pages only
             * @example 25
             */
            totalElements?: number;
            /**
             * @description Offset pages only
             * @example 3
             */
            totalPages?: number;
            /** @example true */
            first: boolean;
            /** @example false */
            last: boolean;
            /**
             * @description Pass as cursor to read the next page; null on the last page
             * @example eyJ2IjoxLCJzIjoiY3JlYXRlZEF0IiwiayI6IjQyIn0
             */
            nextCursor: string | null;
          };
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description User Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  AuthController_login: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['LoginRequest'];
      };
    };
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LoginResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The request body is larger than 64 KiB */
      413: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The request body is not application/json */
      415: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Rate Limit Exceeded; Login Locked. Retry after the number of seconds in Retry-After */
      429: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  AuthController_logout: {
    parameters: {
      query?: {
        all?: boolean;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Revoked: the token(s) answer 401 from now on */
      204: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The URL is not validly percent-encoded, or a parameter or body is malformed */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  RolesController_setRole: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['RoleGrantRequest'];
      };
    };
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RoleGrantResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description User Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The request body is larger than 64 KiB */
      413: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unsupported Media Type */
      415: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  TransactionsController_create: {
    parameters: {
      query?: never;
      header: {
        /**
         * @description Names this transfer: a retry with the same key and body replays the stored result. In Swagger UI, "Try it out" replaces fresh-key-per-try (or an empty key) with a new UUID on every Execute; type a key to replay.
         * @example fresh-key-per-try
         */
        'Idempotency-Key': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['TransferRequest'];
      };
    };
    responses: {
      /** @description Completed; a replay carries Idempotent-Replayed: true */
      201: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Where the created resource can be read */
          Location: string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "transactionId": 42,
           *       "referenceId": "0f8fad5b-d9cb-469f-a165-70867728950e",
           *       "senderUpiId": "alice@okbank",
           *       "receiverUpiId": "bob@okbank",
           *       "amount": 100.5025,
           *       "status": "COMPLETED",
           *       "type": "TRANSFER",
           *       "note": "dinner",
           *       "createdAt": "2026-11-22T10:15:30.123Z"
           *     }
           */
          'application/json': components['schemas']['TransactionResponse'];
        };
      };
      /** @description Invalid Request Content; Self Transfer Not Allowed; Idempotency Key Missing; Idempotency Key Invalid; Idempotency Key Reused */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description User Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Idempotency Key In Flight */
      409: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The request body is larger than 64 KiB */
      413: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unsupported Media Type */
      415: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed; Insufficient Balance; Limit Exceeded; Account Frozen */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Rate Limit Exceeded. Retry after the number of seconds in Retry-After */
      429: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  TransactionsController_list: {
    parameters: {
      query?: {
        sortBy?: 'createdAt' | 'amount';
        /** @description Offset paging, 0-based */
        page?: number;
        /** @description 1 to 100 */
        size?: number;
        /** @description Cursor paging: the nextCursor of the previous page (from an offset page or a cursor page). Not combinable with page (400). Entries added meanwhile neither shift nor repeat the next page. */
        cursor?: string;
      };
      header?: never;
      path: {
        /** @example alice@okbank */
        upiId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page. With page (or neither parameter): the full offset envelope plus nextCursor. With cursor: content, size, first, last and nextCursor only (no counts, so a page costs the same at any depth). */
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            content: components['schemas']['TransactionResponse'][];
            /**
             * @description Offset pages only
             * @example 0
             */
            page?: number;
            /** @example 10 */
            size: number;
            /**
             * @description Offset pages only
             * @example 25
             */
            totalElements?: number;
            /**
             * @description Offset pages only
             * @example 3
             */
            totalPages?: number;
            /** @example true */
            first: boolean;
            /** @example false */
            last: boolean;
            /**
             * @description Pass as cursor to read the next page; null on the last page
             * @example eyJ2IjoxLCJzIjoiY3JlYXRlZEF0IiwiayI6IjQyIn0
             */
            nextCursor: string | null;
          };
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  TransactionsController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TransactionResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Transaction Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  ReversalsController_create: {
    parameters: {
      query?: never;
      header: {
        /**
         * @description Names this reversal: a retry with the same key and body replays the stored result. In Swagger UI, "Try it out" replaces fresh-key-per-try (or an empty key) with a new UUID on every Execute; type a key to replay.
         * @example fresh-key-per-try
         */
        'Idempotency-Key': string;
      };
      path: {
        /**
         * @description The transfer's referenceId
         * @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b
         */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['ReversalRequest'];
      };
    };
    responses: {
      /** @description A REVERSAL transaction with originalReferenceId; a replay carries Idempotent-Replayed: true */
      201: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Where the created resource can be read */
          Location: string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TransactionResponse'];
        };
      };
      /** @description Invalid Request Content; Idempotency Key Missing; Idempotency Key Invalid; Idempotency Key Reused */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Transaction Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Idempotency Key In Flight */
      409: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The request body is larger than 64 KiB */
      413: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unsupported Media Type */
      415: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed; Reversal Exceeds Remaining Amount; Transaction Not Reversible; Insufficient Balance; Account Frozen */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Rate Limit Exceeded. Retry after the number of seconds in Retry-After */
      429: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  PayeesController_lookUp: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The UPI ID about to be paid
         * @example alice@okbank
         */
        upiId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The name to show the payer before they confirm */
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PayeeResponse'];
        };
      };
      /** @description The URL is not validly percent-encoded, or a parameter or body is malformed */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description User Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Rate Limit Exceeded. Retry after the number of seconds in Retry-After */
      429: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  DepositsController_create: {
    parameters: {
      query?: never;
      header: {
        /**
         * @description Names this deposit: a retry with the same key and body replays the stored result. In Swagger UI, "Try it out" replaces fresh-key-per-try (or an empty key) with a new UUID on every Execute; type a key to replay.
         * @example fresh-key-per-try
         */
        'Idempotency-Key': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['DepositRequest'];
      };
    };
    responses: {
      /** @description A DEPOSIT transaction from the treasury; a replay carries Idempotent-Replayed: true */
      201: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Where the created resource can be read */
          Location: string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TransactionResponse'];
        };
      };
      /** @description Invalid Request Content; Idempotency Key Missing; Idempotency Key Invalid; Idempotency Key Reused */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description User Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Idempotency Key In Flight */
      409: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The request body is larger than 64 KiB */
      413: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unsupported Media Type */
      415: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed; Account Frozen */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Rate Limit Exceeded. Retry after the number of seconds in Retry-After */
      429: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  AuditController_report: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The audit report */
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            ok: boolean;
            /** Format: date-time */
            checkedAt: string;
            accounts: number;
            entries: number;
            /** @description Sum of every balance, treasury included: 0 when money is intact */
            globalSum: number;
            brokenEntries: {
              entryId?: number;
              accountId?: number;
              upiId?: string | null;
              reasons?: string[];
            }[];
            brokenAccounts: {
              accountId?: number;
              upiId?: string;
              reason?: string;
              balance?: number;
              ledgerBalance?: number;
              headHash?: string | null;
              newestEntryHash?: string | null;
            }[];
            unbalancedTransactions?: {
              /** Format: uuid */
              transactionReferenceId?: string;
              sum?: number;
              entries?: number;
            }[];
            /** @description Ledger entries and transactions naming an account or transaction that does not exist */
            orphans?: {
              /** @enum {string} */
              kind?: 'ledger-entry' | 'transaction';
              id?: number;
              /** @enum {string} */
              missing?: 'account' | 'transaction' | 'sender' | 'receiver';
              missingId?: number;
            }[];
            /** @description Transactions whose row disagrees with its hash, its ledger entries or its reversals, named by reference */
            brokenTransactions?: {
              /** Format: uuid */
              transactionReferenceId?: string;
              transactionId?: number;
              /** @enum {string} */
              type?: 'TRANSFER' | 'DEPOSIT' | 'REVERSAL';
              reasons?: string[];
            }[];
            counts?: {
              brokenEntries?: number;
              brokenAccounts?: number;
              unbalancedTransactions?: number;
              orphans?: number;
              brokenTransactions?: number;
            };
          };
        };
      };
      /** @description The URL is not validly percent-encoded, or a parameter or body is malformed */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  InsightsController_insight: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SpendInsightResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Transaction Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Feature Disabled; Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  StatementsController_statement: {
    parameters: {
      query?: {
        /** @description ISO-8601 date or date-time with offset, inclusive; default: 30 days before to */
        from?: string;
        /** @description ISO-8601 date or date-time with offset, exclusive; default: now. At most 366 days after from */
        to?: string;
      };
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The statement, oldest entry first */
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['StatementResponse'];
          /**
           * @example createdAt,transactionReferenceId,type,entryType,counterpartyUpiId,amount,balanceAfter,note
           *     2026-11-20T09:15:02.123Z,0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b,TRANSFER,DEBIT,bob@okbank,120.5000,379.5000,dinner
           */
          'text/csv': string;
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description User Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed; History Archived */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  StatementsController_balanceHistory: {
    parameters: {
      query?: {
        interval?: 'hour' | 'day';
        /** @description ISO-8601 date or date-time with offset, inclusive; default: 30 days before to */
        from?: string;
        /** @description ISO-8601 date or date-time with offset, exclusive; default: now. At most 366 days after from */
        to?: string;
      };
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BalancePointResponse'][];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description User Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed; History Archived */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  WebhooksController_list: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookResponse'][];
        };
      };
      /** @description The URL is not validly percent-encoded, or a parameter or body is malformed */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  WebhooksController_create: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateWebhookRequest'];
      };
    };
    responses: {
      201: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Where the created resource can be read */
          Location: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookWithSecretResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Conflict */
      409: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The request body is larger than 64 KiB */
      413: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unsupported Media Type */
      415: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  WebhooksController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Webhook Endpoint Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  WebhooksController_delete: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted */
      204: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Webhook Endpoint Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  WebhooksController_rotateSecret: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookWithSecretResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Webhook Endpoint Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  WebhooksController_deliveries: {
    parameters: {
      query?: {
        status?: 'PENDING' | 'DELIVERED' | 'FAILED';
        limit?: number;
      };
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookDeliveryResponse'][];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Webhook Endpoint Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  WebhooksController_retry: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        id: string;
        deliveryId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Queued; its progress shows in the delivery list */
      202: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Webhook Endpoint Not Found; Webhook Delivery Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Conflict */
      409: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  PaymentRequestsController_create: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreatePaymentRequest'];
      };
    };
    responses: {
      /** @description Location names the request */
      201: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Where the created resource can be read */
          Location: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PaymentRequestResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The request body is larger than 64 KiB */
      413: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unsupported Media Type */
      415: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed; Payment Request Limit Reached */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  PaymentRequestsController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PaymentRequestResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Payment Request Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  PaymentRequestsController_qr: {
    parameters: {
      query?: {
        format?: 'svg' | 'png';
      };
      header?: {
        /** @description The ETag of a copy the client holds */
        'If-None-Match'?: string;
      };
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The QR code */
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Names these exact bytes: send it in If-None-Match */
          ETag: string;
          /** @description The image never changes: a client may keep it */
          'Cache-Control': string;
          [name: string]: unknown;
        };
        content: {
          'image/svg+xml': string;
          'image/png': string;
        };
      };
      /** @description If-None-Match names this image: the copy held is current */
      304: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Names these exact bytes: send it in If-None-Match */
          ETag: string;
          /** @description The image never changes: a client may keep it */
          'Cache-Control': string;
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Payment Request Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Rate Limit Exceeded. Retry after the number of seconds in Retry-After */
      429: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  PaymentRequestsController_pay: {
    parameters: {
      query?: never;
      header: {
        /**
         * @description Names this payment: a retry with the same key and body replays the stored result. In Swagger UI, "Try it out" replaces fresh-key-per-try (or an empty key) with a new UUID on every Execute; type a key to replay.
         * @example fresh-key-per-try
         */
        'Idempotency-Key': string;
      };
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['PayPaymentRequest'];
      };
    };
    responses: {
      /** @description Paid; the body carries paymentRequestReferenceId */
      201: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Where the created resource can be read */
          Location: string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TransactionResponse'];
        };
      };
      /** @description Invalid Request Content; Self Transfer Not Allowed; Idempotency Key Missing; Idempotency Key Invalid; Idempotency Key Reused */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Payment Request Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Payment Request Not Open; Idempotency Key In Flight */
      409: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The request body is larger than 64 KiB */
      413: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unsupported Media Type */
      415: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed; Insufficient Balance; Invalid UPI ID */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Rate Limit Exceeded. Retry after the number of seconds in Retry-After */
      429: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  PaymentRequestsController_cancel: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PaymentRequestResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Payment Request Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Payment Request Not Open */
      409: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  PaymentRequestsController_list: {
    parameters: {
      query?: {
        status?: 'OPEN' | 'PAID' | 'CANCELLED' | 'EXPIRED';
        /** @description Offset paging, 0-based */
        page?: number;
        /** @description 1 to 100 */
        size?: number;
        /** @description Cursor paging: the nextCursor of the previous page (from an offset page or a cursor page). Not combinable with page (400). Entries added meanwhile neither shift nor repeat the next page. */
        cursor?: string;
      };
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page. With page (or neither parameter): the full offset envelope plus nextCursor. With cursor: content, size, first, last and nextCursor only (no counts, so a page costs the same at any depth). */
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            content: components['schemas']['PaymentRequestResponse'][];
            /**
             * @description Offset pages only
             * @example 0
             */
            page?: number;
            /** @example 10 */
            size: number;
            /**
             * @description Offset pages only
             * @example 25
             */
            totalElements?: number;
            /**
             * @description Offset pages only
             * @example 3
             */
            totalPages?: number;
            /** @example true */
            first: boolean;
            /** @example false */
            last: boolean;
            /**
             * @description Pass as cursor to read the next page; null on the last page
             * @example eyJ2IjoxLCJzIjoiY3JlYXRlZEF0IiwiayI6IjQyIn0
             */
            nextCursor: string | null;
          };
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description User Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  HoldsController_place: {
    parameters: {
      query?: never;
      header: {
        /**
         * @description Names this hold: a retry with the same key and body replays the stored result. In Swagger UI, "Try it out" replaces fresh-key-per-try (or an empty key) with a new UUID on every Execute; type a key to replay.
         * @example fresh-key-per-try
         */
        'Idempotency-Key': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['PlaceHoldRequest'];
      };
    };
    responses: {
      /** @description HELD; Location names the hold */
      201: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Where the created resource can be read */
          Location: string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['HoldResponse'];
        };
      };
      /** @description Invalid Request Content; Self Transfer Not Allowed; Idempotency Key Missing; Idempotency Key Invalid; Idempotency Key Reused */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description User Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Idempotency Key In Flight */
      409: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The request body is larger than 64 KiB */
      413: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unsupported Media Type */
      415: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed; Insufficient Balance; Limit Exceeded; Account Frozen; Invalid UPI ID */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Rate Limit Exceeded. Retry after the number of seconds in Retry-After */
      429: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  HoldsController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The hold's referenceId
         * @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b
         */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['HoldResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Hold Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  HoldsController_capture: {
    parameters: {
      query?: never;
      header: {
        /**
         * @description Names this capture: a retry with the same key and body replays the stored result. In Swagger UI, "Try it out" replaces fresh-key-per-try (or an empty key) with a new UUID on every Execute; type a key to replay.
         * @example fresh-key-per-try
         */
        'Idempotency-Key': string;
      };
      path: {
        /**
         * @description The hold's referenceId
         * @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b
         */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CaptureHoldRequest'];
      };
    };
    responses: {
      /** @description A TRANSFER with holdReferenceId */
      201: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Where the created resource can be read */
          Location: string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "transactionId": 43,
           *       "referenceId": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
           *       "senderUpiId": "alice@okbank",
           *       "receiverUpiId": "bob@okbank",
           *       "amount": 120,
           *       "status": "COMPLETED",
           *       "type": "TRANSFER",
           *       "note": "hotel deposit",
           *       "createdAt": "2026-11-22T10:20:00.000Z",
           *       "holdReferenceId": "7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f"
           *     }
           */
          'application/json': components['schemas']['TransactionResponse'];
        };
      };
      /** @description Invalid Request Content; Idempotency Key Missing; Idempotency Key Invalid; Idempotency Key Reused */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Hold Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Hold Not Open; Idempotency Key In Flight */
      409: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The request body is larger than 64 KiB */
      413: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unsupported Media Type */
      415: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed; Hold Exceeded; Account Frozen */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Rate Limit Exceeded. Retry after the number of seconds in Retry-After */
      429: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  HoldsController_release: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The hold's referenceId
         * @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b
         */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['HoldResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Hold Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Hold Not Open */
      409: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  HoldsController_list: {
    parameters: {
      query?: {
        status?: 'HELD' | 'CAPTURED' | 'RELEASED' | 'EXPIRED';
        role?: 'payer' | 'payee';
        /** @description Offset paging, 0-based */
        page?: number;
        /** @description 1 to 100 */
        size?: number;
        /** @description Cursor paging: the nextCursor of the previous page (from an offset page or a cursor page). Not combinable with page (400). Entries added meanwhile neither shift nor repeat the next page. */
        cursor?: string;
      };
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page. With page (or neither parameter): the full offset envelope plus nextCursor. With cursor: content, size, first, last and nextCursor only (no counts, so a page costs the same at any depth). */
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            content: components['schemas']['HoldResponse'][];
            /**
             * @description Offset pages only
             * @example 0
             */
            page?: number;
            /** @example 10 */
            size: number;
            /**
             * @description Offset pages only
             * @example 25
             */
            totalElements?: number;
            /**
             * @description Offset pages only
             * @example 3
             */
            totalPages?: number;
            /** @example true */
            first: boolean;
            /** @example false */
            last: boolean;
            /**
             * @description Pass as cursor to read the next page; null on the last page
             * @example eyJ2IjoxLCJzIjoiY3JlYXRlZEF0IiwiayI6IjQyIn0
             */
            nextCursor: string | null;
          };
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description User Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  LimitsController_view: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LimitsView'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description User Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  LimitsController_override: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['LimitOverridesRequest'];
      };
    };
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LimitsView'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description User Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The request body is larger than 64 KiB */
      413: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unsupported Media Type */
      415: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  LimitsController_freeze: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['FreezeRequest'];
      };
    };
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LimitsView'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description User Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The request body is larger than 64 KiB */
      413: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unsupported Media Type */
      415: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  LimitsController_unfreeze: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['FreezeRequest'];
      };
    };
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LimitsView'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description User Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The request body is larger than 64 KiB */
      413: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unsupported Media Type */
      415: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  LimitsController_actions: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AdminActionResponse'][];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description User Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  ScheduledTransfersController_create: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateScheduledTransferRequest'];
      };
    };
    responses: {
      201: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Where the created resource can be read */
          Location: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ScheduledTransferResponse'];
        };
      };
      /** @description Invalid Request Content; Self Transfer Not Allowed */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description User Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The request body is larger than 64 KiB */
      413: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unsupported Media Type */
      415: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed; Limit Exceeded */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  ScheduledTransfersController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ScheduledTransferResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  ScheduledTransfersController_runs: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ScheduledTransferRunResponse'][];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  ScheduledTransfersController_pause: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ScheduledTransferResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Conflict */
      409: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  ScheduledTransfersController_resume: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ScheduledTransferResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Conflict */
      409: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  ScheduledTransfersController_cancel: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ScheduledTransferResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Conflict */
      409: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  UserScheduledTransfersController_list: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The user's reference ID
         * @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b
         */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ScheduledTransferResponse'][];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description User Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  DisputesController_open: {
    parameters: {
      query?: never;
      header: {
        /**
         * @description Names this dispute: a retry with the same key and body replays the stored result. In Swagger UI, "Try it out" replaces fresh-key-per-try (or an empty key) with a new UUID on every Execute; type a key to replay.
         * @example fresh-key-per-try
         */
        'Idempotency-Key': string;
      };
      path: {
        /**
         * @description The transfer's referenceId
         * @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b
         */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['OpenDisputeRequest'];
      };
    };
    responses: {
      /** @description OPEN; Location names the dispute */
      201: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Where the created resource can be read */
          Location: string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DisputeResponse'];
        };
      };
      /** @description Invalid Request Content; Idempotency Key Missing; Idempotency Key Invalid; Idempotency Key Reused */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Transaction Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Dispute Already Open; Idempotency Key In Flight */
      409: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The request body is larger than 64 KiB */
      413: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unsupported Media Type */
      415: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed; Dispute Window Closed; Transaction Not Reversible; Dispute Limit Exceeded */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Present, with the value true, only when this answer replays the stored one of an earlier request */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Rate Limit Exceeded. Retry after the number of seconds in Retry-After */
      429: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Service Unavailable. Retry later; Retry-After says when, if known */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  DisputesController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The dispute's referenceId
         * @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b
         */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DisputeResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Dispute Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  DisputesController_accept: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The dispute's referenceId
         * @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b
         */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description RESOLVED, resolution REFUNDED */
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DisputeResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Dispute Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Dispute Status Conflict; Conflict */
      409: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Transaction Not Reversible; Insufficient Balance; Account Frozen */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  DisputesController_reject: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The dispute's referenceId
         * @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b
         */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['RejectDisputeRequest'];
      };
    };
    responses: {
      /** @description ESCALATED; resolveBy is the admin turnaround */
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DisputeResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Dispute Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Dispute Status Conflict */
      409: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The request body is larger than 64 KiB */
      413: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unsupported Media Type */
      415: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  DisputesController_withdraw: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The dispute's referenceId
         * @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b
         */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description RESOLVED, resolution WITHDRAWN */
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DisputeResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Dispute Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Dispute Status Conflict */
      409: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  DisputesController_list: {
    parameters: {
      query?: {
        status?: 'OPEN' | 'ESCALATED' | 'RESOLVED';
        /** @description Default raised */
        role?: 'raised' | 'received';
        /** @description Offset paging, 0-based */
        page?: number;
        /** @description 1 to 100 */
        size?: number;
        /** @description Cursor paging: the nextCursor of the previous page (from an offset page or a cursor page). Not combinable with page (400). Entries added meanwhile neither shift nor repeat the next page. */
        cursor?: string;
      };
      header?: never;
      path: {
        /** @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page. With page (or neither parameter): the full offset envelope plus nextCursor. With cursor: content, size, first, last and nextCursor only (no counts, so a page costs the same at any depth). */
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            content: components['schemas']['DisputeResponse'][];
            /**
             * @description Offset pages only
             * @example 0
             */
            page?: number;
            /** @example 10 */
            size: number;
            /**
             * @description Offset pages only
             * @example 25
             */
            totalElements?: number;
            /**
             * @description Offset pages only
             * @example 3
             */
            totalPages?: number;
            /** @example true */
            first: boolean;
            /** @example false */
            last: boolean;
            /**
             * @description Pass as cursor to read the next page; null on the last page
             * @example eyJ2IjoxLCJzIjoiY3JlYXRlZEF0IiwiayI6IjQyIn0
             */
            nextCursor: string | null;
          };
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description User Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  DisputesAdminController_resolve: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The dispute's referenceId
         * @example 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b
         */
        referenceId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['ResolveDisputeRequest'];
      };
    };
    responses: {
      /** @description RESOLVED, resolution REFUNDED or REJECTED */
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DisputeResponse'];
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Dispute Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Dispute Status Conflict; Conflict */
      409: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The request body is larger than 64 KiB */
      413: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unsupported Media Type */
      415: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed; Insufficient Balance; Transaction Not Reversible; Reversal Exceeds Remaining Amount; Account Frozen */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  DisputesAdminController_list: {
    parameters: {
      query?: {
        overdue?: 'true' | 'false';
        status?: 'OPEN' | 'ESCALATED' | 'RESOLVED';
        /** @description Offset paging, 0-based */
        page?: number;
        /** @description 1 to 100 */
        size?: number;
        /** @description Cursor paging: the nextCursor of the previous page (from an offset page or a cursor page). Not combinable with page (400). Entries added meanwhile neither shift nor repeat the next page. */
        cursor?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page. With page (or neither parameter): the full offset envelope plus nextCursor. With cursor: content, size, first, last and nextCursor only (no counts, so a page costs the same at any depth). */
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            content: components['schemas']['DisputeResponse'][];
            /**
             * @description Offset pages only
             * @example 0
             */
            page?: number;
            /** @example 10 */
            size: number;
            /**
             * @description Offset pages only
             * @example 25
             */
            totalElements?: number;
            /**
             * @description Offset pages only
             * @example 3
             */
            totalPages?: number;
            /** @example true */
            first: boolean;
            /** @example false */
            last: boolean;
            /**
             * @description Pass as cursor to read the next page; null on the last page
             * @example eyJ2IjoxLCJzIjoiY3JlYXRlZEF0IiwiayI6IjQyIn0
             */
            nextCursor: string | null;
          };
        };
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Unauthorized. Missing, expired, revoked or invalid bearer token */
      401: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Forbidden Operation */
      403: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Validation Failed */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description The database or a dependency is unavailable */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  ActuatorIndexController_index: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The URL is not validly percent-encoded, or a parameter or body is malformed */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  HealthController_overall: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The URL is not validly percent-encoded, or a parameter or body is malformed */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description DOWN: out of rotation until it recovers */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'DOWN';
            components?: Record<string, never>;
          };
        };
      };
    };
  };
  HealthController_liveness: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The URL is not validly percent-encoded, or a parameter or body is malformed */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description DOWN: out of rotation until it recovers */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'DOWN';
            components?: Record<string, never>;
          };
        };
      };
    };
  };
  HealthController_readiness: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The URL is not validly percent-encoded, or a parameter or body is malformed */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description DOWN: out of rotation until it recovers */
      503: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          /** @description Seconds to wait before retrying, when known */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'DOWN';
            components?: Record<string, never>;
          };
        };
      };
    };
  };
  InfoController_getInfo: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The URL is not validly percent-encoded, or a parameter or body is malformed */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  MetricsController_names: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The URL is not validly percent-encoded, or a parameter or body is malformed */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
  MetricsController_metric: {
    parameters: {
      query?: {
        /** @description key:value, repeatable */
        tag?: unknown;
      };
      header?: never;
      path: {
        /** @example http_server_requests_seconds */
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The metric, summed over the matching series */
      200: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid Request Content */
      400: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description Not Found */
      404: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A path parameter is too long */
      414: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
      /** @description A parameter or field is invalid */
      422: {
        headers: {
          /** @description This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused */
          'X-Request-Id': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDetail'];
        };
      };
    };
  };
}
