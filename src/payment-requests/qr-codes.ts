import { createHash } from 'node:crypto';
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { AppConfig } from '../config/app-config';
import { ByteBoundedLru } from './byte-bounded-lru';
import { QR_RENDERING, type QrFormat, QrRenderPool } from './qr-render-pool';

/** Renders one user may have running or waiting at once; a code already cached or rendering costs nothing. */
export const QR_RENDERS_PER_USER = 2;

/** What a cache entry weighs besides its image: its key, tag and Map slot, roughly. */
const ENTRY_OVERHEAD_BYTES = 256;

export interface QrImage {
  etag: string;
  bytes: Buffer;
}

/**
 * The strong ETag of a QR code: a hash of what decides its bytes (text, format, rendering), so it
 * is known before rendering and stays valid for as long as the text does.
 */
export function qrEtag(text: string, format: QrFormat): string {
  const digest = createHash('sha256').update(`${QR_RENDERING}\n${format}\n${text}`).digest('base64url');
  return `"${digest}"`;
}

/**
 * Payment request QR codes that cost nothing twice: each rendered once on a worker thread
 * (qr-render-pool.ts), kept in a cache bounded by bytes (QR_CACHE_MAX_BYTES), and shared by
 * concurrent fetches while it renders. Keyed by request and format: a request's upiUri never
 * changes and a request is never deleted, so a cached code needs no database read. Each instance
 * keeps its own cache: a code costs one render per instance, and the database stays the money's.
 */
@Injectable()
export class QrCodes implements OnModuleDestroy {
  private readonly cache: ByteBoundedLru<QrImage>;
  private readonly rendering = new Map<string, Promise<QrImage>>();
  private readonly rendersByUser = new Map<string, number>();
  private readonly pool = new QrRenderPool();
  /** Renders started since boot: what the cache saved shows here (the tests read it). */
  rendersStarted = 0;

  constructor(config: AppConfig) {
    this.cache = new ByteBoundedLru(config.qrCacheMaxBytes, (image) => image.bytes.length + ENTRY_OVERHEAD_BYTES);
  }

  cached(referenceId: string, format: QrFormat): QrImage | undefined {
    return this.cache.get(cacheKey(referenceId, format));
  }

  /** The code of `upiUri`; 429 when `userId` already has QR_RENDERS_PER_USER renders of other codes under way. */
  async image(referenceId: string, upiUri: string, format: QrFormat, userId: string): Promise<QrImage> {
    const key = cacheKey(referenceId, format);
    return this.cache.get(key) ?? this.rendering.get(key) ?? this.render(key, upiUri, format, userId);
  }

  onModuleDestroy(): Promise<void> {
    return this.pool.close();
  }

  private render(key: string, upiUri: string, format: QrFormat, userId: string): Promise<QrImage> {
    const running = this.rendersByUser.get(userId) ?? 0;
    if (running >= QR_RENDERS_PER_USER) {
      throw new ApiError(
        ErrorCode.RateLimitExceeded,
        `Too many QR codes rendering for you at once (at most ${QR_RENDERS_PER_USER}); retry after 1 second`,
        { headers: { 'Retry-After': '1' } },
      );
    }
    const etag = qrEtag(upiUri, format);
    const rendered = this.pool.render(upiUri, format).then((bytes) => ({ etag, bytes }));
    this.rendersStarted += 1;
    this.rendersByUser.set(userId, running + 1);
    this.rendering.set(key, rendered);
    const settle = () => {
      this.rendering.delete(key);
      this.release(userId);
    };
    rendered.then((image) => {
      this.cache.set(key, image);
      settle();
    }, settle);
    return rendered;
  }

  private release(userId: string): void {
    const running = (this.rendersByUser.get(userId) ?? 1) - 1;
    if (running > 0) this.rendersByUser.set(userId, running);
    else this.rendersByUser.delete(userId);
  }
}

const cacheKey = (referenceId: string, format: QrFormat) => `${referenceId}/${format}`;
