import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';

export type QrFormat = 'svg' | 'png';

// Medium error correction: a printed or photographed code still scans with a smudge on it.
const QR_OPTIONS = { errorCorrectionLevel: 'M', margin: 4 } as const;
const PNG_SCALE = 8;

/** What decides the pixels besides the text: part of every ETag, so a change here changes them all. */
export const QR_RENDERING = JSON.stringify({ ...QR_OPTIONS, pngScale: PNG_SCALE });

/**
 * Render threads: one core is left to the event loop. The largest PNG costs about 300 ms of CPU,
 * which on the event loop stalled every other request for as long (issue 38).
 */
export const QR_RENDER_THREADS = Math.max(1, Math.min(2, availableParallelism() - 1));
/** Renders waiting for a thread; beyond that a render is refused at once (503) instead of queueing. */
export const QR_RENDERS_QUEUED_MAX = 64;

/** One render per message, { text, format } → { image } or { error }; one at a time per thread. */
const RENDER_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const QRCode = require(workerData.qrcodePath);
const { options, pngScale } = workerData;
parentPort.on('message', ({ text, format }) => {
  const image = format === 'png'
    ? QRCode.toBuffer(text, { ...options, type: 'png', scale: pngScale })
    : QRCode.toString(text, { ...options, type: 'svg' }).then((svg) => Buffer.from(svg, 'utf8'));
  image.then(
    (bytes) => parentPort.postMessage({ image: bytes }),
    (error) => parentPort.postMessage({ error: String(error && error.message ? error.message : error) }),
  );
});
`;

interface RenderJob {
  text: string;
  format: QrFormat;
  resolve(image: Buffer): void;
  reject(error: Error): void;
}

/** QR codes rendered on worker threads, off the event loop; threads start on first use. */
export class QrRenderPool {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, RenderJob>();
  private readonly queue: RenderJob[] = [];
  private closed = false;

  constructor(
    private readonly threads = QR_RENDER_THREADS,
    private readonly queuedMax = QR_RENDERS_QUEUED_MAX,
  ) {}

  /** The image's bytes (SVG as UTF-8); 503 service-unavailable when too many renders already wait. */
  render(text: string, format: QrFormat): Promise<Buffer> {
    if (this.queue.length >= this.queuedMax) {
      throw new ApiError(ErrorCode.ServiceUnavailable, 'Too many QR codes are being rendered; retry shortly', {
        headers: { 'Retry-After': '1' },
      });
    }
    return new Promise<Buffer>((resolve, reject) => {
      this.queue.push({ text, format, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('The QR render pool is closed'));
    await Promise.all([...this.idle.splice(0), ...this.busy.keys()].map((worker) => worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? this.spawn();
      if (worker === undefined) return;
      const job = this.queue.shift()!;
      this.busy.set(worker, job);
      worker.postMessage({ text: job.text, format: job.format });
    }
  }

  private spawn(): Worker | undefined {
    if (this.closed || this.idle.length + this.busy.size >= this.threads) return undefined;
    const qrcodePath = createRequire(__filename).resolve('qrcode');
    const worker = new Worker(RENDER_THREAD, {
      eval: true,
      workerData: { qrcodePath, options: QR_OPTIONS, pngScale: PNG_SCALE },
    });
    // Idle threads never keep the process alive; close() ends them on shutdown.
    worker.unref();
    worker.on('message', (answer: { image?: Uint8Array; error?: string }) => this.finish(worker, answer));
    worker.on('error', (error) => this.lose(worker, error));
    worker.on('exit', (code) => this.lose(worker, new Error(`A QR render thread exited (code ${code})`)));
    return worker;
  }

  private finish(worker: Worker, answer: { image?: Uint8Array; error?: string }): void {
    const job = this.busy.get(worker);
    this.busy.delete(worker);
    this.idle.push(worker);
    if (answer.image) job?.resolve(Buffer.from(answer.image.buffer, answer.image.byteOffset, answer.image.byteLength));
    else job?.reject(new Error(`QR rendering failed: ${answer.error}`));
    this.dispatch();
  }

  /** A thread that failed or exited is dropped with its job; the next render starts a new one. */
  private lose(worker: Worker, error: Error): void {
    const job = this.busy.get(worker);
    this.busy.delete(worker);
    const index = this.idle.indexOf(worker);
    if (index >= 0) this.idle.splice(index, 1);
    job?.reject(error);
    this.dispatch();
  }
}
